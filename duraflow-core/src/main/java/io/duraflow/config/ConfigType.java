package io.duraflow.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * How values of one type are written as text in configuration files and {@code -D} flags, and
 * read back. {@code parse(format(v))} equals {@code v} for every valid value.
 *
 * @param <T> the Java type of the values
 */
public final class ConfigType<T> {
    public static final ConfigType<Integer> INT = new ConfigType<>("int", Integer.class,
            text -> Integer.parseInt(stripUnderscores(text)), String::valueOf, "an integer such as '4'");
    public static final ConfigType<Long> LONG = new ConfigType<>("long", Long.class,
            text -> Long.parseLong(stripUnderscores(text)), String::valueOf, "a whole number such as '1000'");
    public static final ConfigType<Double> DOUBLE = new ConfigType<>("double", Double.class,
            ConfigType::parseFiniteDouble, String::valueOf, "a number such as '0.75'");
    public static final ConfigType<Boolean> BOOLEAN = new ConfigType<>("boolean", Boolean.class,
            ConfigType::parseBoolean, String::valueOf, "'true' or 'false'");
    public static final ConfigType<String> STRING = new ConfigType<>("string", String.class,
            Function.identity(), Function.identity(), "a string");
    public static final ConfigType<Duration> DURATION = new ConfigType<>("duration", Duration.class,
            Durations::parse, Durations::format, "a duration such as '500 ms', '10 s' or '5 min'");
    public static final ConfigType<MemorySize> MEMORY = new ConfigType<>("memory", MemorySize.class,
            MemorySize::parse, MemorySize::toString, "a memory size such as '512 kb', '64 mb' or '1 gb'");

    private final String name;
    private final Class<T> valueClass;
    private final Function<String, T> parser;
    private final Function<T, String> formatter;
    private final String expected;

    private ConfigType(String name, Class<T> valueClass, Function<String, T> parser, Function<T, String> formatter,
            String expected) {
        this.name = Objects.requireNonNull(name, "name");
        this.valueClass = Objects.requireNonNull(valueClass, "valueClass");
        this.parser = Objects.requireNonNull(parser, "parser");
        this.formatter = Objects.requireNonNull(formatter, "formatter");
        this.expected = Objects.requireNonNull(expected, "expected");
    }

    /**
     * Enum constants written in lower case with dashes: {@code FIXED_DELAY <-> "fixed-delay"}.
     * Parsing ignores case and also accepts underscores.
     */
    public static <E extends Enum<E>> ConfigType<E> ofEnum(Class<E> enumClass) {
        E[] constants = enumClass.getEnumConstants();
        String names = Arrays.stream(constants).map(ConfigType::enumText).collect(Collectors.joining("|"));
        String expected = "one of " + Arrays.stream(constants).map(c -> "'" + enumText(c) + "'")
                .collect(Collectors.joining(", "));
        Function<String, E> parser = text -> {
            String wanted = text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
            for (E constant : constants) {
                if (enumText(constant).equals(wanted)) {
                    return constant;
                }
            }
            throw new IllegalArgumentException("not a " + enumClass.getSimpleName() + ": '" + text + "'");
        };
        return new ConfigType<>(names, enumClass, parser, ConfigType::enumText, expected);
    }

    private static String enumText(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Short name for the option table: {@code int}, {@code duration}, or the values of an enum. */
    public String name() {
        return name;
    }

    public Class<T> valueClass() {
        return valueClass;
    }

    /** Completes "expected ..." in error messages, e.g. {@code "a duration such as '10 s'"}. */
    public String expected() {
        return expected;
    }

    /**
     * Reads a value from its text form.
     *
     * @throws IllegalArgumentException if the text is not a value of this type
     */
    public T parse(String text) {
        T value = parser.apply(text);
        if (value == null) {
            throw new IllegalArgumentException("no value in '" + text + "'");
        }
        return value;
    }

    /**
     * Writes a value in its text form.
     *
     * @throws IllegalArgumentException if the value has no text form (e.g. a negative duration)
     */
    public String format(T value) {
        return formatter.apply(valueClass.cast(value));
    }

    @Override
    public String toString() {
        return name;
    }

    private static String stripUnderscores(String text) {
        return text.trim().replace("_", "");
    }

    private static double parseFiniteDouble(String text) {
        double value = Double.parseDouble(text.trim());
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("not a finite number: '" + text + "'");
        }
        return value;
    }

    private static boolean parseBoolean(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not a boolean: '" + text + "'");
        };
    }
}
