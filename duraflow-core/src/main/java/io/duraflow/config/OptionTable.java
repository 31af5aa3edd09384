package io.duraflow.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** Renders options as a plain-text table; long descriptions wrap within their column. */
final class OptionTable {
    /** Lines stay within this width; the description column gets what the other columns leave, up to 64. */
    private static final int MAX_LINE_WIDTH = 150;
    private static final int MAX_DESCRIPTION_WIDTH = 64;
    private static final int MIN_DESCRIPTION_WIDTH = 32;
    /** Enum types ("a|b|c") longer than this wrap after a '|'. */
    private static final int MAX_TYPE_WIDTH = 24;
    private static final String[] HEADER = {"KEY", "TYPE", "DEFAULT", "DESCRIPTION"};

    private OptionTable() {
    }

    static String render(Collection<ConfigOption<?>> options) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (ConfigOption<?> option : options) {
            rows.add(new String[] {option.key(), option.type().name(), defaultText(option), option.description()});
        }
        int[] widths = new int[3];
        for (String[] row : rows) {
            for (int c = 0; c < widths.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        widths[1] = Math.min(widths[1], MAX_TYPE_WIDTH);
        int descriptionWidth = Math.max(MIN_DESCRIPTION_WIDTH,
                Math.min(MAX_DESCRIPTION_WIDTH, MAX_LINE_WIDTH - (widths[0] + widths[1] + widths[2] + 6)));
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            List<String> lines = wrap(row[3], descriptionWidth);
            List<String> types = wrapType(row[1], widths[1]);
            for (int l = 0; l < Math.max(lines.size(), types.size()); l++) {
                StringBuilder line = new StringBuilder();
                for (int c = 0; c < widths.length; c++) {
                    String cell = c == 1 ? (l < types.size() ? types.get(l) : "") : l == 0 ? row[c] : "";
                    line.append(cell).append(" ".repeat(Math.max(0, widths[c] - cell.length()) + 2));
                }
                line.append(l < lines.size() ? lines.get(l) : "");
                out.append(line.toString().stripTrailing()).append('\n');
            }
        }
        return out.toString();
    }

    private static <T> String defaultText(ConfigOption<T> option) {
        T value = option.defaultValue();
        return value == null ? "(none)" : option.format(value);
    }

    /** A type name cut after a '|' where it would pass {@code width}; each piece but the last ends with '|'. */
    private static List<String> wrapType(String type, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        String[] choices = type.split("\\|", -1);
        for (int i = 0; i < choices.length; i++) {
            String piece = choices[i] + (i < choices.length - 1 ? "|" : "");
            if (line.length() > 0 && line.length() + piece.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(piece);
        }
        lines.add(line.toString());
        return lines;
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split("\\s+")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        lines.add(line.toString());
        return lines;
    }
}
