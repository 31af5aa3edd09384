package io.duraflow.state.rocksdb;

/**
 * How keys are laid out in the database (key-group prefix first), and which column family holds
 * what. See docs/design/state-backends.md#keylayout.
 */
final class KeyLayout {
    static final int KEY_GROUP_BYTES = 2;
    /** Processing-time timers. */
    static final String TIMERS_COLUMN = "_timers";
    /** Event-time timers: the same layout as {@link #TIMERS_COLUMN}. */
    static final String EVENT_TIMERS_COLUMN = "_event_timers";
    private static final String ENTRIES_PREFIX = "s:";
    private static final String RAW_PREFIX = "r:";

    private KeyLayout() {
    }

    static String entriesColumn(String state) {
        return ENTRIES_PREFIX + state;
    }

    static String rawColumn(String state) {
        return RAW_PREFIX + state;
    }

    static void writeKeyGroup(byte[] buffer, int keyGroup) {
        buffer[0] = (byte) (keyGroup >>> 8);
        buffer[1] = (byte) keyGroup;
    }

    static int readKeyGroup(byte[] key) {
        return ((key[0] & 0xff) << 8) | (key[1] & 0xff);
    }

    /** The two-byte prefix of {@code keyGroup}: the first key of its range. */
    static byte[] keyGroupPrefix(int keyGroup) {
        byte[] prefix = new byte[KEY_GROUP_BYTES];
        writeKeyGroup(prefix, keyGroup);
        return prefix;
    }

    /** Whether {@code key} starts with {@code prefix[0, length)}. */
    static boolean startsWith(byte[] key, byte[] prefix, int length) {
        if (key.length < length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (key[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    static void writeTime(byte[] buffer, int offset, long time) {
        long flipped = time ^ Long.MIN_VALUE;
        for (int i = 0; i < 8; i++) {
            buffer[offset + i] = (byte) (flipped >>> (56 - 8 * i));
        }
    }

    static long readTime(byte[] buffer, int offset) {
        long flipped = 0;
        for (int i = 0; i < 8; i++) {
            flipped = (flipped << 8) | (buffer[offset + i] & 0xff);
        }
        return flipped ^ Long.MIN_VALUE;
    }
}
