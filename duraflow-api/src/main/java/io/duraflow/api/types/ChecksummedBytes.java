package io.duraflow.api.types;

import java.util.zip.CRC32C;

/**
 * The framing of a small durable state (a source enumerator's checkpointed state, say): a varint
 * format version first, the body, then the CRC32C of everything before it as a big-endian int.
 *
 * <pre>
 * varint version | body ... | int32 CRC32C of version and body
 * </pre>
 *
 * {@link #open} tells a damaged state from one of another version, naming the state in its
 * {@link CorruptDataException}.
 */
public final class ChecksummedBytes {
    private static final int CHECKSUM_BYTES = 4;

    private ChecksummedBytes() {}

    /** A writer whose first bytes are {@code version}; write the body, then {@link #seal} it. */
    public static DataWriter start(int version) {
        DataWriter out = new DataWriter(64);
        out.writeVarInt(version);
        return out;
    }

    /** Appends the CRC32C of what {@code out} holds and returns all of it. */
    public static byte[] seal(DataWriter out) {
        CRC32C crc = new CRC32C();
        crc.update(out.buffer(), 0, out.position());
        out.writeInt((int) crc.getValue());
        return out.toByteArray();
    }

    /**
     * A reader of the body of {@code bytes}, positioned after the version.
     *
     * @param what names the state in error messages, e.g. "the checkpointed state of the file source watching /in"
     * @throws CorruptDataException if the bytes are too short, damaged, or of another version
     */
    public static DataReader open(byte[] bytes, int version, String what) {
        if (bytes.length < 1 + CHECKSUM_BYTES) {
            throw new CorruptDataException(what + " is corrupt: " + bytes.length + " bytes is too short;"
                    + " restore from another checkpoint");
        }
        int body = bytes.length - CHECKSUM_BYTES;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, body);
        boolean intact = new DataReader(bytes, body, CHECKSUM_BYTES).readInt() == (int) crc.getValue();
        int found = readVersion(bytes);
        if (found != version) {
            throw new CorruptDataException(what + (intact ? "" : " is corrupt or") + " has format version " + found
                    + ", this build reads version " + version
                    + "; restore with the Duraflow version that wrote it, or from another checkpoint");
        }
        if (!intact) {
            throw new CorruptDataException(what + " is corrupt (CRC32C mismatch); restore from another checkpoint");
        }
        DataReader in = new DataReader(bytes, 0, body);
        in.readVarInt();
        return in;
    }

    private static int readVersion(byte[] bytes) {
        try {
            return new DataReader(bytes).readVarInt();
        } catch (CorruptDataException e) {
            return -1;
        }
    }
}
