package io.duraflow.exchange;

import io.duraflow.exchange.blocking.PartitionFileWriter;


/**
 * Constants of the partition file format; the layout itself is drawn in the javadoc of
 * {@link PartitionFileWriter} (files) and {@link Frames} (frames).
 */
public final class PartitionFormat {
    public static final byte[] DATA_MAGIC = {'D', 'F', 'P', 'D'};
    public static final byte[] INDEX_MAGIC = {'D', 'F', 'P', 'I'};
    public static final int VERSION = 1;
    /** Magic and version. */
    public static final int DATA_HEADER_BYTES = 8;
    /** Magic, version, subpartition count. */
    public static final int INDEX_HEADER_BYTES = 12;
    /** Per subpartition: record bytes, record count, frame count (offsets follow). */
    public static final int INDEX_ENTRY_FIXED_BYTES = 20;
    public static final int INDEX_CRC_BYTES = 4;

    private PartitionFormat() {
    }

    public static boolean hasMagic(byte[] bytes, byte[] magic) {
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
