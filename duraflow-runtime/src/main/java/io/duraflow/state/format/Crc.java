package io.duraflow.state.format;

import java.util.zip.CRC32C;

/** CRC32C of a byte range, as every state format here stores it (an int, big-endian). */
final class Crc {
    private Crc() {
    }

    static int of(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }
}
