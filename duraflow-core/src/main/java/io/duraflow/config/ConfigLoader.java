package io.duraflow.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds a {@link Configuration} from an optional YAML file and {@code -D} overrides.
 *
 * <p>The file is a map of keys to scalars; nested maps are flattened with dots, so these are the
 * same setting:
 *
 * <pre>
 *   heartbeat.interval: 2 s
 *
 *   heartbeat:
 *     interval: 2 s
 * </pre>
 *
 * Scalars are taken as the text written in the file ({@code 0x10} stays {@code 0x10}), then parsed
 * by the option's type. Lists, empty values and a key given twice (in either form) are errors.
 * Overrides win over the file. Every key and value is validated against the registry, and errors
 * name where the key came from: the file path or {@code -D}.
 */
public final class ConfigLoader {
    /** The source named in errors about overrides. */
    public static final String OVERRIDES_SOURCE = "-D";

    private static final YAMLFactory YAML = new YAMLFactory();

    private ConfigLoader() {
    }

    /** As {@link #load(Path, Map, ConfigRegistry)} with {@link ConfigRegistry#global()}. */
    public static Configuration load(Path yamlFileOrNull, Map<String, String> overrides) {
        return load(yamlFileOrNull, overrides, ConfigRegistry.global());
    }

    /**
     * Reads the file (if not null), then applies the overrides.
     *
     * @param yamlFileOrNull a YAML file that must exist, or null for none
     * @param overrides {@code key -> value} pairs from {@code -Dkey=value} flags
     * @throws IllegalConfigurationException if the file is missing or malformed, or a key is
     *     unknown or a value invalid
     */
    public static Configuration load(Path yamlFileOrNull, Map<String, String> overrides, ConfigRegistry registry) {
        Configuration configuration = new Configuration();
        if (yamlFileOrNull != null) {
            configuration.setAll(readYaml(yamlFileOrNull), registry, yamlFileOrNull.toString());
        }
        return configuration.setAll(overrides, registry, OVERRIDES_SOURCE);
    }

    /**
     * Reads a YAML file into flat {@code key -> text} pairs without validating keys or values.
     *
     * @throws IllegalConfigurationException if the file is missing, unreadable or malformed
     */
    static Map<String, String> readYaml(Path file) {
        if (!Files.exists(file)) {
            throw new IllegalConfigurationException("configuration file not found: " + file);
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalConfigurationException("configuration file is not a regular file: " + file);
        }
        Map<String, String> flat = new TreeMap<>();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
                JsonParser parser = YAML.createParser(reader)) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                return flat; // empty file or only comments
            }
            if (token != JsonToken.START_OBJECT) {
                throw malformed(file, parser.currentLocation(), "expected a map of keys to values");
            }
            readMap(parser, "", flat, file);
            if (parser.nextToken() != null) {
                throw malformed(file, parser.currentLocation(), "only one YAML document is supported");
            }
        } catch (JsonProcessingException e) {
            throw malformed(file, e.getLocation(), syntaxProblem(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new IllegalConfigurationException("cannot read configuration file " + file + ": " + e.getMessage(), e);
        }
        return flat;
    }

    private static void readMap(JsonParser parser, String prefix, Map<String, String> flat, Path file)
            throws IOException {
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String key = prefix + parser.currentName();
            JsonLocation keyLocation = parser.currentLocation();
            JsonToken value = parser.nextToken();
            if (value == JsonToken.START_OBJECT) {
                readMap(parser, key + ".", flat, file);
            } else if (value == JsonToken.START_ARRAY) {
                throw malformed(file, keyLocation, "'" + key + "' is a list; configuration values are single values");
            } else if (value == JsonToken.VALUE_NULL) {
                throw malformed(file, keyLocation, "'" + key + "' has no value");
            } else if (flat.putIfAbsent(key, parser.getText()) != null) {
                throw malformed(file, keyLocation, "'" + key + "' is given more than once");
            }
        }
    }

    private static IllegalConfigurationException malformed(Path file, JsonLocation location, String problem) {
        String line = location == null || location.getLineNr() < 1 ? "" : " at line " + location.getLineNr();
        return new IllegalConfigurationException("invalid configuration file " + file + line + ": " + problem);
    }

    /**
     * The YAML parser's message in one line. Its messages are a context line ("while parsing a
     * block mapping"), a problem line, and for each an indented location and source excerpt; keep
     * the problem, then the context in parentheses.
     */
    static String syntaxProblem(String message) {
        if (message == null || message.isBlank()) {
            return "syntax error";
        }
        String context = null;
        StringBuilder problem = new StringBuilder();
        for (String line : message.split("\\R")) {
            if (line.isBlank() || Character.isWhitespace(line.charAt(0))) {
                continue; // location or excerpt of the source
            }
            if (context == null && problem.length() == 0 && line.startsWith("while ")) {
                context = line.strip();
            } else {
                problem.append(problem.length() == 0 ? "" : " ").append(line.strip());
            }
        }
        if (problem.length() == 0) {
            return context == null ? message.strip().lines().findFirst().orElse("syntax error") : context;
        }
        return context == null ? problem.toString() : problem + " (" + context + ")";
    }
}
