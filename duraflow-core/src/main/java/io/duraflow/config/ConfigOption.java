package io.duraflow.config;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One typed configuration setting: its key, type, default value (or none), a one-sentence
 * description and an optional validator. Immutable; options are declared as
 * {@code public static final} fields of holder classes that {@link ConfigRegistry} collects.
 *
 * <pre>{@code
 * public static final ConfigOption<Duration> HEARTBEAT_INTERVAL = ConfigOption.key("heartbeat.interval")
 *         .durationType()
 *         .defaultValue(Duration.ofSeconds(1))
 *         .validator(ConfigValidator.positiveDuration())
 *         .description("How often task managers send a heartbeat to the job manager.");
 * }</pre>
 *
 * <p>Keys are lower case, dot-separated words that may contain digits and dashes, e.g.
 * {@code restart-strategy.fixed-delay.attempts}.
 *
 * @param <T> the type of the option's values
 */
public final class ConfigOption<T> {
    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*");

    private final String key;
    private final ConfigType<T> type;
    private final T defaultValue;
    private final ConfigValidator<T> validator;
    private final String description;

    private ConfigOption(String key, ConfigType<T> type, T defaultValue, ConfigValidator<T> validator,
            String description) {
        this.key = key;
        this.type = type;
        this.defaultValue = defaultValue;
        this.validator = validator;
        this.description = description;
    }

    /** Starts declaring an option; continue with a type, e.g. {@code .durationType()}. */
    public static Builder key(String key) {
        Objects.requireNonNull(key, "key");
        if (!KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("invalid configuration key '" + key
                    + "': use lower-case words separated by dots, e.g. 'heartbeat.interval'");
        }
        return new Builder(key);
    }

    public String key() {
        return key;
    }

    public ConfigType<T> type() {
        return type;
    }

    /** The value used when the option is not set, or {@code null} if it has none. */
    public T defaultValue() {
        return defaultValue;
    }

    public boolean hasDefaultValue() {
        return defaultValue != null;
    }

    public String description() {
        return description;
    }

    /**
     * Reads and validates a value from its text form.
     *
     * @throws IllegalConfigurationException naming the key, the text and what is expected
     */
    public T parse(String text) {
        return parse(text, null);
    }

    /** As {@link #parse(String)}; {@code source} (a file path, {@code "-D"} or null) goes into the message. */
    T parse(String text, String source) {
        Objects.requireNonNull(text, "text");
        T value;
        try {
            value = type.parse(text);
        } catch (IllegalArgumentException e) {
            throw invalidValue(text, source, type.expected());
        }
        if (!validator.isValid(value)) {
            throw invalidValue(text, source, validator.expected());
        }
        return value;
    }

    /**
     * Writes a value in its text form after checking it, so that {@code parse(format(v))} equals
     * {@code v}.
     *
     * @throws IllegalConfigurationException if the value is invalid for this option
     */
    public String format(T value) {
        Objects.requireNonNull(value, "value");
        String text;
        try {
            text = type.format(value);
        } catch (IllegalArgumentException | ClassCastException e) {
            throw invalidValue(String.valueOf(value), null, type.expected());
        }
        if (!validator.isValid(value)) {
            throw invalidValue(text, null, validator.expected());
        }
        return text;
    }

    private IllegalConfigurationException invalidValue(String text, String source, String expected) {
        return new IllegalConfigurationException("invalid value '" + oneLine(text) + "' for " + key
                + (source == null ? "" : " (from " + source + ")") + ": expected " + expected);
    }

    static String oneLine(String text) {
        return text.replace("\r", "\\r").replace("\n", "\\n");
    }

    /** The key; options are compared by identity. */
    @Override
    public String toString() {
        return key;
    }

    /** Second step of declaring an option: choose its type. */
    public static final class Builder {
        private final String key;

        private Builder(String key) {
            this.key = key;
        }

        public TypedBuilder<Integer> intType() {
            return type(ConfigType.INT);
        }

        public TypedBuilder<Long> longType() {
            return type(ConfigType.LONG);
        }

        public TypedBuilder<Double> doubleType() {
            return type(ConfigType.DOUBLE);
        }

        public TypedBuilder<Boolean> booleanType() {
            return type(ConfigType.BOOLEAN);
        }

        public TypedBuilder<String> stringType() {
            return type(ConfigType.STRING);
        }

        public TypedBuilder<Duration> durationType() {
            return type(ConfigType.DURATION);
        }

        public TypedBuilder<MemorySize> memoryType() {
            return type(ConfigType.MEMORY);
        }

        /** Values are the enum's constants in lower case with dashes, e.g. {@code fixed-delay}. */
        public <E extends Enum<E>> TypedBuilder<E> enumType(Class<E> enumClass) {
            return type(ConfigType.ofEnum(enumClass));
        }

        public <T> TypedBuilder<T> type(ConfigType<T> type) {
            return new TypedBuilder<>(key, Objects.requireNonNull(type, "type"));
        }
    }

    /**
     * Last step of declaring an option: optional default and validator, then
     * {@link #description(String)} builds the option.
     */
    public static final class TypedBuilder<T> {
        private final String key;
        private final ConfigType<T> type;
        private T defaultValue;
        private ConfigValidator<T> validator = ConfigValidator.any();

        private TypedBuilder(String key, ConfigType<T> type) {
            this.key = key;
            this.type = type;
        }

        public TypedBuilder<T> defaultValue(T value) {
            this.defaultValue = Objects.requireNonNull(value, "default value; use noDefaultValue() instead");
            return this;
        }

        /** The option has no default; {@link Configuration#get} returns null when it is unset. */
        public TypedBuilder<T> noDefaultValue() {
            this.defaultValue = null;
            return this;
        }

        public TypedBuilder<T> validator(ConfigValidator<T> validator) {
            this.validator = Objects.requireNonNull(validator, "validator");
            return this;
        }

        /**
         * Builds the option.
         *
         * @param description one sentence saying what the option controls and its unit or special values
         * @throws IllegalArgumentException if the default value fails the type or the validator
         */
        public ConfigOption<T> description(String description) {
            Objects.requireNonNull(description, "description");
            ConfigOption<T> option = new ConfigOption<>(key, type, defaultValue, validator, description);
            if (defaultValue != null) {
                // A bad default is a programming error; fail when the holder class loads.
                option.parse(option.format(defaultValue));
            }
            return option;
        }
    }
}
