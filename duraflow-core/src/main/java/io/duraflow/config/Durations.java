package io.duraflow.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Text form of {@link Duration}s in configuration: a whole number followed by an optional unit,
 * with or without a space, in any case. A number without a unit is milliseconds.
 *
 * <pre>
 *   ns, nanos, nanoseconds       us, micros, microseconds      ms, millis, milliseconds
 *   s, sec, secs, seconds        m, min, mins, minutes         h, hour, hours
 *   d, day, days
 * </pre>
 *
 * {@link #format} prints the largest unit that divides the duration exactly ({@code 500 ms},
 * {@code 10 s}, {@code 5 min}, {@code 1 h}, {@code 2 d}), so {@code parse(format(d))} equals
 * {@code d}. Negative durations have no text form.
 */
public final class Durations {
    private static final Pattern FORMAT = Pattern.compile("\\s*(\\d+)\\s*([a-zA-Z\u00b5]*)\\s*");

    /** Units from largest to smallest, with the name {@link #format} prints. */
    private static final ChronoUnit[] UNITS = {
        ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES, ChronoUnit.SECONDS,
        ChronoUnit.MILLIS, ChronoUnit.MICROS, ChronoUnit.NANOS
    };
    private static final String[] UNIT_NAMES = {"d", "h", "min", "s", "ms", "us", "ns"};

    private Durations() {
    }

    /**
     * Parses the text form described in the class comment.
     *
     * @throws IllegalArgumentException if the text is not a duration or is too large
     */
    public static Duration parse(String text) {
        Matcher m = FORMAT.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: '" + text + "'");
        }
        ChronoUnit unit = unit(m.group(2).toLowerCase(Locale.ROOT), text);
        try {
            return Duration.of(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("duration too large: '" + text + "'", e);
        }
    }

    private static ChronoUnit unit(String unit, String text) {
        return switch (unit) {
            case "ns", "nano", "nanos", "nanosecond", "nanoseconds" -> ChronoUnit.NANOS;
            case "us", "\u00b5s", "micro", "micros", "microsecond", "microseconds" -> ChronoUnit.MICROS;
            case "", "ms", "milli", "millis", "millisecond", "milliseconds" -> ChronoUnit.MILLIS;
            case "s", "sec", "secs", "second", "seconds" -> ChronoUnit.SECONDS;
            case "m", "min", "mins", "minute", "minutes" -> ChronoUnit.MINUTES;
            case "h", "hour", "hours" -> ChronoUnit.HOURS;
            case "d", "day", "days" -> ChronoUnit.DAYS;
            default -> throw new IllegalArgumentException("unknown duration unit '" + unit + "' in '" + text + "'");
        };
    }

    /**
     * Prints the duration in the largest unit that divides it exactly, e.g. {@code 1500 ms}.
     *
     * @throws IllegalArgumentException if the duration is negative, or has a fraction of a second
     *     and is too long to count in nanoseconds (about 292 years)
     */
    public static String format(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("negative durations have no text form: " + duration);
        }
        if (duration.isZero()) {
            return "0 ms";
        }
        for (int i = 0; i < UNITS.length; i++) {
            Duration unit = UNITS[i].getDuration();
            // Duration.ofSeconds(seconds, nanos) is exact; compare in seconds first so huge
            // whole-second durations never overflow a nanosecond count.
            if (unit.getNano() == 0 && duration.getNano() == 0) {
                if (duration.getSeconds() % unit.getSeconds() == 0) {
                    return duration.getSeconds() / unit.getSeconds() + " " + UNIT_NAMES[i];
                }
            } else if (unit.getNano() != 0) {
                long nanos;
                try {
                    nanos = duration.toNanos();
                } catch (ArithmeticException e) {
                    throw new IllegalArgumentException("duration too long to print exactly: " + duration, e);
                }
                if (nanos % unit.getNano() == 0) {
                    return nanos / unit.getNano() + " " + UNIT_NAMES[i];
                }
            }
        }
        throw new AssertionError("every duration is a whole number of nanoseconds: " + duration);
    }
}
