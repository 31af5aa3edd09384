package io.duraflow.config;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Values of configuration options, keyed by option key. Options that were not set read as their
 * default. Every value is checked when it is set, so {@link #get} never fails.
 *
 * <p>{@link #toMap()} gives the explicitly set options in their text form, e.g. to start a child
 * process with {@code -Dkey=value} flags; {@link #fromMap} reads that form back and validates
 * every key and value. Values may contain spaces ({@code 10 s}), so pass them as separate process
 * arguments rather than through a shell.
 *
 * <p>Not thread-safe: build a configuration on one thread, then share it only for reading or
 * {@link #copy()} it.
 */
public final class Configuration {
    /** A value and the option it was set through; {@code text} is the option's text form of it. */
    private record Setting<T>(ConfigOption<T> option, T value, String text) {
    }

    private final TreeMap<String, Setting<?>> settings = new TreeMap<>();

    /** An empty configuration: every option has its default value. */
    public Configuration() {
    }

    /** Reads {@code key -> text} pairs, validating them against {@link ConfigRegistry#global()}. */
    public static Configuration fromMap(Map<String, String> values) {
        return fromMap(values, ConfigRegistry.global(), null);
    }

    /**
     * Reads {@code key -> text} pairs, validating keys and values against {@code registry}.
     *
     * @param source where the values came from for error messages (a file path, {@code "-D"}), or null
     * @throws IllegalConfigurationException for the first unknown key or invalid value, in key order
     */
    public static Configuration fromMap(Map<String, String> values, ConfigRegistry registry, String source) {
        return new Configuration().setAll(values, registry, source);
    }

    /** Sets all pairs, validated as in {@link #fromMap(Map, ConfigRegistry, String)}; later calls win. */
    Configuration setAll(Map<String, String> values, ConfigRegistry registry, String source) {
        for (Map.Entry<String, String> entry : new TreeMap<>(values).entrySet()) {
            ConfigOption<?> option = registry.lookup(entry.getKey(), source);
            setText(option, entry.getValue(), source);
        }
        return this;
    }

    private <T> void setText(ConfigOption<T> option, String text, String source) {
        T value = option.parse(text, source);
        settings.put(option.key(), new Setting<>(option, value, option.format(value)));
    }

    /** The value set for the option, or its default (null if it has none). */
    public <T> T get(ConfigOption<T> option) {
        Setting<?> setting = settings.get(option.key());
        if (setting == null) {
            return option.defaultValue();
        }
        if (setting.option() == option) {
            return option.type().valueClass().cast(setting.value());
        }
        // Set through a different option object with the same key: re-read its text form.
        return option.parse(setting.text());
    }

    /**
     * Sets a value, checked against the option's type and validator.
     *
     * @throws IllegalConfigurationException if the value is invalid for the option
     */
    public <T> Configuration set(ConfigOption<T> option, T value) {
        Objects.requireNonNull(value, () -> "value for " + option.key() + "; use remove() to unset it");
        String text = option.format(value);
        settings.put(option.key(), new Setting<>(option, value, text));
        return this;
    }

    /** Unsets the option so that it reads as its default again. */
    public Configuration remove(ConfigOption<?> option) {
        settings.remove(option.key());
        return this;
    }

    /** Whether the option was set explicitly (a default does not count). */
    public boolean contains(ConfigOption<?> option) {
        return settings.containsKey(option.key());
    }

    /** The explicitly set options as {@code key -> text}, sorted by key; values are in canonical text form. */
    public Map<String, String> toMap() {
        TreeMap<String, String> map = new TreeMap<>();
        settings.forEach((key, setting) -> map.put(key, setting.text()));
        return Collections.unmodifiableMap(map);
    }

    /** An independent copy; values are immutable, so sharing them is safe. */
    public Configuration copy() {
        Configuration copy = new Configuration();
        copy.settings.putAll(settings);
        return copy;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Configuration that && toMap().equals(that.toMap());
    }

    @Override
    public int hashCode() {
        return toMap().hashCode();
    }

    @Override
    public String toString() {
        return toMap().toString();
    }
}
