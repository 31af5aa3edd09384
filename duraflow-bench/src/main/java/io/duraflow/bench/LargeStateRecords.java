package io.duraflow.bench;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * The records of the savepoint-restore benchmark's job, the same on Duraflow ({@link
 * LargeStateJob}) and on Flink ({@code FlinkLargeState}): a generator of logical indexes g = 0, 1,
 * 2, ... dealt by stride to the source readers (reader g % parallelism; Flink's contiguous ranges
 * are mapped onto this) turned into (key, tag) records for a keyed function that keeps one value
 * of {@code valueBytes} pseudo-random bytes per key (incompressible, so the state on disk and in
 * the savepoint is as large as it says).
 *
 * <p>Rules of the generator:
 *
 * <ol>
 *   <li>g < keys: write key g ({@link #WRITE}); every key is written exactly once.
 *   <li>g >= keys in {@link Mode#BUILD}: an idle record from reader g % parallelism ({@link
 *       #IDLE} + reader), after {@link #IDLE_PAUSE_NANOS} on the reader's thread, so a built job
 *       waits for its savepoint almost without using CPU. A keyed subtask that saw an idle record
 *       from every reader has processed every write meant for it (records of one reader reach it
 *       in order).
 *   <li>g >= keys in {@link Mode#RESTORE} (a job restored from the savepoint continues at its
 *       readers' positions, past the writes): check key (g - keys) % keys ({@link #CHECK}) as fast
 *       as the job goes: read the value and compare it with {@link #value}.
 * </ol>
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
