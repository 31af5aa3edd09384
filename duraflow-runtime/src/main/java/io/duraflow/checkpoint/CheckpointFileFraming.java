package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/**
 * The frame around every small checkpoint file (metadata, completed-checkpoint pointers): a
 * four-byte magic that says which file it is, a version, the payload's length and CRC32C, then the
 * payload. Layout (big-endian):
 *
 * <pre>
 *  offset  size  field
 *       0     4  magic          four ASCII bytes, e.g. "DFCM"
 *       4     4  version        int32, the version written; readers reject a version outside the range they read
 *       8     4  payloadLength  int32, 0 .. {@link #MAX_PAYLOAD_BYTES}; the file is exactly 16 + payloadLength long
 *      12     4  crc32c         int32, CRC32C of the payload bytes
 *      16     n  payload
 * </pre>
 *
 * A file is written whole and synced once, so a crash can only leave it shorter than its length
 * field says (torn) or padded: both are rejected, as is any payload whose CRC does not match.
 */
final class CheckpointFileFraming {
    static final int HEADER_BYTES = 16;
    static final int MAX_PAYLOAD_BYTES = 256 << 20;

    private final String kind;
    private final byte[] magic;
    private final int version;
    /** The oldest version this reader still reads; {@link #version} is the newest. */
    private final int oldestReadableVersion;

    CheckpointFileFraming(String kind, String magic, int version) {
        this(kind, magic, version, version);
    }

    /** Writes {@code version}; reads {@code oldestReadableVersion} .. {@code version}. */
    CheckpointFileFraming(String kind, String magic, int version, int oldestReadableVersion) {
        this.kind = kind;
        this.magic = magic.getBytes(StandardCharsets.US_ASCII);
        if (this.magic.length != 4) {
            throw new IllegalArgumentException("magic must be 4 ASCII bytes: " + magic);
        }
        this.version = version;
        if (oldestReadableVersion < 1 || oldestReadableVersion > version) {
            throw new IllegalArgumentException("oldest readable version " + oldestReadableVersion + " of " + version);
        }
        this.oldestReadableVersion = oldestReadableVersion;
    }

    String kind() {
        return kind;
    }

    byte[] frame(byte[] payload) {
        if (payload.length > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException(kind + " of " + payload.length + " bytes exceeds the limit of "
                    + MAX_PAYLOAD_BYTES + " bytes; keep large state in files, not inline");
        }
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return ByteBuffer.allocate(HEADER_BYTES + payload.length)
                .put(magic)
                .putInt(version)
                .putInt(payload.length)
                .putInt((int) crc.getValue())
                .put(payload)
                .array();
    }

    /** The payload of a framed file's bytes, checked; {@code file} only names it in errors. */
    byte[] unframe(FsPath file, byte[] bytes) throws CorruptCheckpointFileException {
        if (bytes.length < HEADER_BYTES) {
            throw corrupt(file, "torn: " + bytes.length + " bytes, shorter than the " + HEADER_BYTES + "-byte header");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        byte[] foundMagic = new byte[4];
        buffer.get(foundMagic);
        if (!java.util.Arrays.equals(foundMagic, magic)) {
            throw corrupt(file, "not a " + kind + " file (magic " + HexFormat.of().formatHex(foundMagic)
                    + ", expected " + HexFormat.of().formatHex(magic) + ")");
        }
        int foundVersion = buffer.getInt();
        if (foundVersion < oldestReadableVersion || foundVersion > version) {
            throw corrupt(file, "format version " + foundVersion + ", this Duraflow reads version "
                    + (oldestReadableVersion == version ? Integer.toString(version)
                            : oldestReadableVersion + " to " + version));
        }
        int length = buffer.getInt();
        if (length < 0 || length > MAX_PAYLOAD_BYTES) {
            throw corrupt(file, "payload length " + length + " out of range");
        }
        if (bytes.length != HEADER_BYTES + length) {
            throw corrupt(file, (bytes.length < HEADER_BYTES + length ? "torn: " : "trailing bytes: ") + bytes.length
                    + " bytes, the header says " + (HEADER_BYTES + length));
        }
        int expectedCrc = buffer.getInt();
        CRC32C crc = new CRC32C();
        crc.update(bytes, HEADER_BYTES, length);
        if ((int) crc.getValue() != expectedCrc) {
            throw corrupt(file, String.format("checksum mismatch: stored %08x, computed %08x", expectedCrc,
                    (int) crc.getValue()));
        }
        byte[] payload = new byte[length];
        buffer.get(payload);
        return payload;
    }

    CorruptCheckpointFileException corrupt(FsPath file, String reason) {
        return new CorruptCheckpointFileException(kind, file, reason);
    }
}
