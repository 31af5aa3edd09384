package io.duraflow.api.connectors;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Cuts one line into fields. A field that starts with '"' is quoted: it ends at the next lone
 * '"', and "" inside it stands for one '"'; the delimiter is plain text inside it. Text between
 * a closing quote and the next delimiter is appended as is. A '"' anywhere else is plain text.
 * A quote that is not closed on the line is an error (fields spanning lines are not supported).
 */
final class CsvParser {
    private CsvParser() {}

    static void validateDelimiter(char delimiter) {
        if (delimiter == '"' || delimiter == '\n' || delimiter == '\r') {
            throw new IllegalArgumentException("CSV delimiter cannot be a quote or a line end: "
                    + describe(delimiter));
        }
    }

    /** The delimiter as printable text for descriptions and messages. */
    static String describe(char delimiter) {
        return delimiter > ' ' && delimiter < 0x7F ? "'" + delimiter + "'" : String.format("U+%04X", (int) delimiter);
    }

    /** @throws IllegalArgumentException if a quoted field is not closed on the line */
    static List<String> parse(String line, char delimiter) {
        List<String> fields = new ArrayList<>();
        int length = line.length();
        int i = 0;
        StringBuilder quoted = null;
        while (true) {
            if (i < length && line.charAt(i) == '"') {
                if (quoted == null) {
                    quoted = new StringBuilder();
                }
                quoted.setLength(0);
                i = readQuoted(line, i + 1, quoted);
                while (i < length && line.charAt(i) != delimiter) {
                    quoted.append(line.charAt(i++));
                }
                fields.add(quoted.toString());
            } else {
                int end = line.indexOf(delimiter, i);
                if (end < 0) {
                    end = length;
                }
                fields.add(line.substring(i, end));
                i = end;
            }
            if (i >= length) {
                return Collections.unmodifiableList(fields);
            }
            i++; // the delimiter; a delimiter at the end of the line is followed by an empty field
        }
    }

    /** Appends the quoted field's content from {@code i}; returns the index after the closing quote. */
    private static int readQuoted(String line, int i, StringBuilder out) {
        int length = line.length();
        while (i < length) {
            char c = line.charAt(i++);
            if (c != '"') {
                out.append(c);
            } else if (i < length && line.charAt(i) == '"') {
                out.append('"');
                i++;
            } else {
                return i;
            }
        }
        throw new IllegalArgumentException("unterminated quoted field (quoted fields spanning lines are not supported)");
    }
}
