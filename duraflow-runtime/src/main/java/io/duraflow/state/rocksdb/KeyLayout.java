package io.duraflow.state.rocksdb;

/**
 * How keys are laid out in the database, and which column family holds what.
 *
 * <pre>
 * column family        key                                                   value
 * s:&lt;state&gt; value      kg (2 bytes, big-endian) | key                            value
 * s:&lt;state&gt; list       kg | key                                              n x { var-int length, element }
 * s:&lt;state&gt; map        kg | key | map key                                    map value
 * r:&lt;state&gt;            kg                                                    the state's canonical block of kg
 * _timers              kg | time (8 bytes, big-endian, sign bit flipped) | key  empty
 * </pre>
 *
 * Keys, map keys, values and elements are written by their serializers, which are self-delimiting
 * (a reader knows where a key ends), so a key's bytes are never a prefix of another key's and all
 * entries of one key of a map state are contiguous. The key-group prefix makes each key group a
 * contiguous range of every column family, which is what lets a restore delete the key groups it
 * does not own ({@code deleteRange}) and a snapshot visit key groups in order. {@code r:} column
 * families hold state restored from a canonical snapshot whose serializers are not known yet (it has
 * not been declared); declaring the state converts them into its {@code s:} column family.
 * List elements are length-prefixed so that appending is a RocksDB merge (no read) and a snapshot
 * can count elements without deserializing them.
 */
final class KeyLayout {
    static final int KEY_GROUP_BYTES = 2;
    static final String TIMERS_COLUMN = "_timers";
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
