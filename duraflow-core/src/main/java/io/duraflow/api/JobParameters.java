package io.duraflow.api;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

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
        asked.add(key);
        String value = values.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(value.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new InvalidJobParametersException("job parameter '" + key + "' must be a whole number, got '" + value + "'");
        }
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
        asked.add(key);
        String value = values.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidJobParametersException("job parameter '" + key + "' must be a number, got '" + value + "'");
        }
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        asked.add(key);
        String value = values.get(key);
        if (value == null) {
            return defaultValue;
        }
        return switch (value.trim().toLowerCase()) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new InvalidJobParametersException("job parameter '" + key + "' must be true or false, got '"
                    + value + "'");
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
