package io.duraflow.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An amount of memory in bytes. Units are binary: {@code 1 kb = 1024 bytes}, {@code 1 mb = 1024 kb}.
 *
 * <p>Text form: a whole number followed by an optional unit, with or without a space, in any case:
 * {@code 1024} (bytes), {@code 512k}, {@code 64mb}, {@code 64 MB}, {@code 1g}, {@code 2 tib}.
 * {@link #toString()} prints the largest unit that divides the size exactly, e.g. {@code 64 mb}
 * or {@code 1536 kb}, so that {@code parse(size.toString())} gives back the same size.
 *
 * @param bytes the size in bytes, never negative
 */
public record MemorySize(long bytes) implements Comparable<MemorySize> {
    private static final Pattern FORMAT = Pattern.compile("\\s*(\\d+)\\s*([a-zA-Z]*)\\s*");
    private static final long KB = 1L << 10;
    private static final long MB = 1L << 20;
    private static final long GB = 1L << 30;
    private static final long TB = 1L << 40;

    public MemorySize {
        if (bytes < 0) {
            throw new IllegalArgumentException("memory size must not be negative: " + bytes + " bytes");
        }
    }

    public static MemorySize ofBytes(long bytes) {
        return new MemorySize(bytes);
    }

    public static MemorySize ofKibiBytes(long kibiBytes) {
        return new MemorySize(Math.multiplyExact(kibiBytes, KB));
    }

    public static MemorySize ofMebiBytes(long mebiBytes) {
        return new MemorySize(Math.multiplyExact(mebiBytes, MB));
    }

    public static MemorySize ofGibiBytes(long gibiBytes) {
        return new MemorySize(Math.multiplyExact(gibiBytes, GB));
    }

    /**
     * Parses the text form described in the class comment.
     *
     * @throws IllegalArgumentException if the text is not a memory size or does not fit in a long
     */
    public static MemorySize parse(String text) {
        Matcher m = FORMAT.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a memory size: '" + text + "'");
        }
        long multiplier = multiplier(m.group(2).toLowerCase(Locale.ROOT), text);
        try {
            return new MemorySize(Math.multiplyExact(Long.parseLong(m.group(1)), multiplier));
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("memory size too large: '" + text + "'", e);
        }
    }

    private static long multiplier(String unit, String text) {
        return switch (unit) {
            case "", "b", "byte", "bytes" -> 1;
            case "k", "kb", "kib" -> KB;
            case "m", "mb", "mib" -> MB;
            case "g", "gb", "gib" -> GB;
            case "t", "tb", "tib" -> TB;
            default -> throw new IllegalArgumentException("unknown memory unit '" + unit + "' in '" + text + "'");
        };
    }

    public long mebiBytes() {
        return bytes / MB;
    }

    @Override
    public int compareTo(MemorySize other) {
        return Long.compare(bytes, other.bytes);
    }

    /** The largest unit that divides the size exactly, e.g. {@code 64 mb}, {@code 1536 kb}, {@code 100 bytes}. */
    @Override
    public String toString() {
        if (bytes == 0) {
            return "0 bytes";
        }
        if (bytes % TB == 0) {
            return bytes / TB + " tb";
        }
        if (bytes % GB == 0) {
            return bytes / GB + " gb";
        }
        if (bytes % MB == 0) {
            return bytes / MB + " mb";
        }
        if (bytes % KB == 0) {
            return bytes / KB + " kb";
        }
        return bytes + " bytes";
    }
}
