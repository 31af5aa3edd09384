package io.duraflow.api;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The {@code --param key=value} pairs of a job. Getters parse and validate; keys that the job
 * never asks for are reported by {@link #checkAllUsed} so a typo is an error, not a default.
 */
public final class JobParameters {
    private final Map<String, String> values;
    private final TreeSet<String> asked = new TreeSet<>();

    public JobParameters(Map<String, String> values) {
        this.values = new TreeMap<>(values);
    }

    public Map<String, String> asMap() {
        return Map.copyOf(values);
    }

    public boolean has(String key) {
        asked.add(key);
        return values.containsKey(key);
    }

    public String getString(String key, String defaultValue) {
        asked.add(key);
        return values.getOrDefault(key, defaultValue);
    }

    public String getRequired(String key) {
        asked.add(key);
        String value = values.get(key);
        if (value == null || value.isEmpty()) {
            throw new InvalidJobParametersException("missing job parameter '" + key + "': pass --param " + key + "=...");
        }
        return value;
    }

    public long getLong(String key, long defaultValue) {
        return get(key, defaultValue, "a whole number", text -> Long.parseLong(text.trim().replace("_", "")));
    }

    public long getLong(String key, long defaultValue, long min, long max) {
        long value = getLong(key, defaultValue);
        if (value < min || value > max) {
            throw new InvalidJobParametersException("job parameter '" + key + "' must be between " + min + " and " + max
                    + ", got " + value);
        }
        return value;
    }

    public int getInt(String key, int defaultValue, int min, int max) {
        return (int) getLong(key, defaultValue, min, max);
    }

    public double getDouble(String key, double defaultValue) {
        return get(key, defaultValue, "a number", text -> Double.parseDouble(text.trim()));
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        return get(key, defaultValue, "true or false", JobParameters::parseBoolean);
    }

    /**
     * The parsed value of {@code key}, or {@code defaultValue} if it is not given.
     *
     * @param expected completes "must be ..." in the error message
     * @param parser throws {@link IllegalArgumentException} for text that is not a value
     */
    private <T> T get(String key, T defaultValue, String expected, Function<String, T> parser) {
        asked.add(key);
        String value = values.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidJobParametersException("job parameter '" + key + "' must be " + expected + ", got '"
                    + value + "'");
        }
    }

    private static boolean parseBoolean(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new IllegalArgumentException("not a boolean");
        };
    }

    /** Fails if a parameter was given that the job never asked for. */
    public void checkAllUsed(String jobName) {
        TreeSet<String> unknown = new TreeSet<>(values.keySet());
        unknown.removeAll(asked);
        if (!unknown.isEmpty()) {
            throw new InvalidJobParametersException("unknown parameter" + (unknown.size() > 1 ? "s " : " ")
                    + String.join(", ", unknown) + " for job " + jobName + "; it accepts: "
                    + (asked.isEmpty() ? "no parameters" : String.join(", ", asked)));
        }
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
