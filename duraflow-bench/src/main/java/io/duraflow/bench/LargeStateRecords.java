package io.duraflow.bench;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * The records of the savepoint-restore benchmark's job, the same on Duraflow and on Flink. The
 * generator's rules: see docs/design/benchmarks.md#largestaterecords.
 */
public final class LargeStateRecords {
    public static final long WRITE = 0;
    public static final long CHECK = 1;
    /** IDLE + reader index. */
    public static final long IDLE = 2;
    public static final long IDLE_PAUSE_NANOS = 10_000_000;
    /** The value size unless the benchmark says otherwise: 1 KiB. */
    public static final int DEFAULT_VALUE_BYTES = 1024;

    public enum Mode { BUILD, RESTORE }

    private LargeStateRecords() {
    }

    /** Keys for about {@code stateBytes} of values of {@code valueBytes} each. */
    public static long keysFor(long stateBytes, int valueBytes) {
        return Math.max(1, stateBytes / valueBytes);
    }

    /** The tag of the record for logical index {@code g}; pauses the calling reader for an idle record. */
    public static long tag(long g, long keys, int parallelism, Mode mode) {
        if (g < keys) {
            return WRITE;
        }
        if (mode == Mode.RESTORE) {
            return CHECK;
        }
        LockSupport.parkNanos(IDLE_PAUSE_NANOS);
        return IDLE + g % parallelism;
    }

    /** The key of the record for logical index {@code g} (see the rules). */
    public static long key(long g, long keys) {
        return g < keys ? g : (g - keys) % keys;
    }

    /**
     * The value of {@code key}: {@code valueBytes} bytes of a SplitMix64 sequence whose start is
     * the mixed key (a start of {@code key * step} would make the value of key k + 1 that of k
     * shifted by 8 bytes, which compresses).
     */
    public static byte[] value(long key, int valueBytes) {
        byte[] value = new byte[valueBytes];
        long state = mix(key ^ 0x632BE59BD9B4E019L);
        for (int i = 0; i < valueBytes; i += 8) {
            state += 0x9E3779B97F4A7C15L;
            long z = mix(state);
            for (int b = 0; b < 8 && i + b < valueBytes; b++) {
                value[i + b] = (byte) (z >>> (8 * b));
            }
        }
        return value;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Whether {@code stored} is the value of {@code key}. */
    public static boolean matches(long key, byte[] stored, int valueBytes) {
        return stored != null && Arrays.equals(stored, value(key, valueBytes));
    }
}
