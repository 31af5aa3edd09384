package io.duraflow.config;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * A check on the value of one option beyond its type, e.g. a port range. The {@link #expected()}
 * text completes an error message: {@code invalid value '0' for taskmanager.slots: expected an
 * integer >= 1}.
 *
 * @param <T> the type of the values checked
 */
public final class ConfigValidator<T> {
    private static final ConfigValidator<Object> ANY = new ConfigValidator<>(value -> true, "any value");

    private final Predicate<T> test;
    private final String expected;

    private ConfigValidator(Predicate<T> test, String expected) {
        this.test = Objects.requireNonNull(test, "test");
        this.expected = Objects.requireNonNull(expected, "expected");
    }

    /**
     * A validator from a predicate.
     *
     * @param expected what a valid value looks like, e.g. {@code "an integer >= 1"}
     */
    public static <T> ConfigValidator<T> of(Predicate<T> test, String expected) {
        return new ConfigValidator<>(test, expected);
    }

    /** Accepts every value of the type. */
    @SuppressWarnings("unchecked")
    public static <T> ConfigValidator<T> any() {
        return (ConfigValidator<T>) ANY;
    }

    /** Integers from {@code min} to {@code max}, both inclusive. */
    public static ConfigValidator<Integer> intRange(int min, int max) {
        return of(v -> v >= min && v <= max, "an integer between " + min + " and " + max);
    }

    public static ConfigValidator<Integer> intAtLeast(int min) {
        return of(v -> v >= min, "an integer >= " + min);
    }

    public static ConfigValidator<Double> doubleAtLeast(double min) {
        return of(v -> v >= min && Double.isFinite(v), "a number >= " + min);
    }

    /** Numbers from {@code min} to {@code max}, both inclusive. */
    public static ConfigValidator<Double> doubleBetween(double min, double max) {
        return of(v -> v >= min && v <= max, "a number between " + min + " and " + max);
    }

    public static ConfigValidator<Duration> positiveDuration() {
        return of(v -> !v.isZero() && !v.isNegative(), "a duration greater than 0 such as '500 ms' or '10 s'");
    }

    /** Durations of zero or more, for options where 0 means "do not wait" or "at once". */
    public static ConfigValidator<Duration> nonNegativeDuration() {
        return of(v -> !v.isNegative(), "a duration >= 0 such as '0 s' or '30 s'");
    }

    public static ConfigValidator<MemorySize> positiveMemory() {
        return of(v -> v.bytes() > 0, "a memory size greater than 0 such as '64 mb'");
    }

    public static ConfigValidator<String> nonBlank() {
        return of(v -> !v.isBlank(), "a non-empty string");
    }

    public boolean isValid(T value) {
        return test.test(value);
    }

    /** What a valid value looks like; completes "expected ..." in error messages. */
    public String expected() {
        return expected;
    }

    @Override
    public String toString() {
        return expected;
    }
}
