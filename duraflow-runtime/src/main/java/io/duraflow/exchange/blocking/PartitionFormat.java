package io.duraflow.exchange.blocking;

import io.duraflow.exchange.Frames;

/**
 * Constants of the partition file format; the layout itself is drawn in the javadoc of
 * {@link PartitionFileWriter} (files) and {@link Frames} (frames).
 */
public final class PartitionFormat {
    static final byte[] DATA_MAGIC = {'D', 'F', 'P', 'D'};
    static final byte[] INDEX_MAGIC = {'D', 'F', 'P', 'I'};
    static final int VERSION = 1;
    /** Magic and version. */
    static final int DATA_HEADER_BYTES = 8;
    /** Magic, version, subpartition count. */
    static final int INDEX_HEADER_BYTES = 12;
    /** Per subpartition: record bytes, record count, frame count (offsets follow). */
    static final int INDEX_ENTRY_FIXED_BYTES = 20;
    static final int INDEX_CRC_BYTES = 4;

    private PartitionFormat() {
    }

    static boolean hasMagic(byte[] bytes, byte[] magic) {
        if (bytes.length < magic.length) {
            return false;
        }
        for (int i = 0; i < magic.length; i++) {
            if (bytes[i] != magic[i]) {
                return false;
            }
        }
        return true;
    }

    public static int readInt(byte[] bytes, int at) {
        return ((bytes[at] & 0xFF) << 24) | ((bytes[at + 1] & 0xFF) << 16)
                | ((bytes[at + 2] & 0xFF) << 8) | (bytes[at + 3] & 0xFF);
    }
}
