package io.duraflow.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests and the
 * benchmark that scrape Duraflow's endpoints: the Prometheus Java client writes this format but
 * does not read it. Strict: every sample must follow the {@code # TYPE} line of its family and
 * carry a name that family allows (a histogram's {@code _bucket}, {@code _sum} and {@code _count},
 * a counter's own name), metric and label names must be valid, label values quoted and escaped
 * correctly, no series may appear twice, and every value must be a number.
 *
 * <pre>
 *   # HELP duraflow_vertex_records_in_total Records the vertex read ...
 *   # TYPE duraflow_vertex_records_in_total counter
 *   duraflow_vertex_records_in_total{job_id="j1",job_name="keyed sum",vertex_id="1",vertex="Source"} 12345.0
 * </pre>
 */
public final class PrometheusText {
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped", "unknown");

    /** One series: its name (with a histogram's suffix), labels in order, value. */
    public record Sample(String name, Map<String, String> labels, double value) {}

    /** A family: its name as {@code # TYPE} gives it, its type, help and samples in order. */
    public record Family(String name, String type, String help, List<Sample> samples) {
        /** The samples whose labels include every one of {@code labels} (name, value, name, value, ...). */
        public List<Sample> matching(String... labels) {
            List<Sample> matching = new ArrayList<>();
            for (Sample sample : samples) {
                boolean all = true;
                for (int i = 0; i + 1 < labels.length; i += 2) {
                    all &= labels[i + 1].equals(sample.labels().get(labels[i]));
                }
                if (all) {
                    matching.add(sample);
                }
            }
            return matching;
        }

        /** The sum of the values of the matching samples (see {@link #matching}). */
        public double sum(String... labels) {
            return matching(labels).stream().mapToDouble(Sample::value).sum();
        }
    }

    /** The text did not follow the format; the message names the line. */
    public static final class FormatException extends IllegalArgumentException {
        FormatException(int line, String problem, String text) {
            super("line " + line + ": " + problem + ": " + text);
        }
    }

    private PrometheusText() {}

    /** GETs {@code url} (loopback) and returns the body; fails unless the answer is 200 in the text format. */
    public static String scrape(String url) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
        connection.setConnectTimeout(5_000);
        connection.setReadTimeout(10_000);
        try {
            int code = connection.getResponseCode();
            if (code != 200) {
                throw new IOException(url + " answered " + code);
            }
            String type = String.valueOf(connection.getContentType());
            if (!type.startsWith("text/plain") || !type.contains("version=0.0.4")) {
                throw new IOException(url + " answered content type " + type + ", not the text format 0.0.4");
            }
            try (InputStream body = connection.getInputStream()) {
                return new String(body.readAllBytes(), StandardCharsets.UTF_8);
            }
        } finally {
            connection.disconnect();
        }
    }

    /** The families of {@code text} by name, in the order they appear. */
    public static Map<String, Family> parse(String text) {
        Map<String, Family> families = new LinkedHashMap<>();
        Map<String, String> help = new LinkedHashMap<>();
        Set<String> series = new HashSet<>();
        Family current = null;
        int lineNumber = 0;
        for (String line : text.split("\n", -1)) {
            lineNumber++;
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("# HELP ")) {
                String[] parts = line.substring(7).split(" ", 2);
                requireName(parts[0], lineNumber, line);
                help.put(parts[0], parts.length > 1 ? parts[1] : "");
            } else if (line.startsWith("# TYPE ")) {
                String[] parts = line.substring(7).split(" ");
                if (parts.length != 2 || !TYPES.contains(parts[1])) {
                    throw new FormatException(lineNumber, "a TYPE line needs a name and a known type", line);
                }
                requireName(parts[0], lineNumber, line);
                if (families.containsKey(parts[0])) {
                    throw new FormatException(lineNumber, "family declared twice", line);
                }
                current = new Family(parts[0], parts[1], help.getOrDefault(parts[0], ""), new ArrayList<>());
                families.put(parts[0], current);
            } else if (line.startsWith("#")) {
                continue;
            } else {
                Sample sample = sample(line, lineNumber);
                if (current == null || !belongs(sample.name(), current)) {
                    throw new FormatException(lineNumber, "sample outside the family of the TYPE line before it"
                            + (current == null ? "" : " (" + current.name() + ")"), line);
                }
                if (!series.add(sample.name() + sample.labels())) {
                    throw new FormatException(lineNumber, "series appears twice", line);
                }
                current.samples().add(sample);
            }
        }
        Map<String, Family> frozen = new LinkedHashMap<>();
        families.forEach((name, f) -> frozen.put(name, new Family(f.name(), f.type(), f.help(),
                Collections.unmodifiableList(f.samples()))));
        return Collections.unmodifiableMap(frozen);
    }

    private static boolean belongs(String sampleName, Family family) {
        String base = family.name();
        return switch (family.type()) {
            case "histogram" -> sampleName.equals(base + "_bucket") || sampleName.equals(base + "_sum")
                    || sampleName.equals(base + "_count");
            case "summary" -> sampleName.equals(base) || sampleName.equals(base + "_sum")
                    || sampleName.equals(base + "_count");
            case "counter" -> sampleName.equals(base) && base.endsWith("_total") || sampleName.equals(base + "_total");
            default -> sampleName.equals(base);
        };
    }

    private static void requireName(String name, int line, String text) {
        if (!METRIC_NAME.matcher(name).matches()) {
            throw new FormatException(line, "invalid metric name '" + name + "'", text);
        }
    }

    /** {@code name{a="x",b="y"} value [timestamp]} */
    private static Sample sample(String line, int lineNumber) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        requireName(name, lineNumber, line);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                if (eq < 0) {
                    throw new FormatException(lineNumber, "label without '='", line);
                }
                String label = line.substring(i, eq);
                if (!LABEL_NAME.matcher(label).matches()) {
                    throw new FormatException(lineNumber, "invalid label name '" + label + "'", line);
                }
                if (eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                    throw new FormatException(lineNumber, "label value not quoted", line);
                }
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                while (true) {
                    if (j >= line.length()) {
                        throw new FormatException(lineNumber, "label value not closed", line);
                    }
                    char c = line.charAt(j);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        char escaped = j + 1 < line.length() ? line.charAt(j + 1) : ' ';
                        switch (escaped) {
                            case '\\' -> value.append('\\');
                            case '"' -> value.append('"');
                            case 'n' -> value.append('\n');
                            default -> throw new FormatException(lineNumber, "invalid escape in a label value", line);
                        }
                        j += 2;
                    } else {
                        value.append(c);
                        j++;
                    }
                }
                if (labels.put(label, value.toString()) != null) {
                    throw new FormatException(lineNumber, "label '" + label + "' twice", line);
                }
                i = j + 1;
                if (i < line.length() && line.charAt(i) == ',') {
                    i++;
                } else if (i >= line.length() || line.charAt(i) != '}') {
                    throw new FormatException(lineNumber, "expected ',' or '}' after a label", line);
                }
            }
            i++;
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            throw new FormatException(lineNumber, "expected a space before the value", line);
        }
        String[] rest = line.substring(i + 1).split(" ");
        if (rest.length < 1 || rest.length > 2) {
            throw new FormatException(lineNumber, "expected a value and at most a timestamp", line);
        }
        return new Sample(name, Collections.unmodifiableMap(labels), value(rest[0], lineNumber, line));
    }

    private static double value(String text, int lineNumber, String line) {
        switch (text) {
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            case "NaN":
                return Double.NaN;
            default:
                try {
                    return Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    throw new FormatException(lineNumber, "value is not a number", line);
                }
        }
    }
}
