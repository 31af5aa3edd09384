package io.duraflow.util;

/** Murmur3 32-bit hash of a byte range: spreads keys evenly over key groups. */
public final class Murmur {
    private Murmur() {}

    public static int hash(byte[] data, int offset, int length) {
        int h = 0x9747b28c;
        int end = offset + (length & ~3);
        for (int i = offset; i < end; i += 4) {
            int k = (data[i] & 0xFF) | ((data[i + 1] & 0xFF) << 8) | ((data[i + 2] & 0xFF) << 16) | (data[i + 3] << 24);
            k *= 0xcc9e2d51;
            k = Integer.rotateLeft(k, 15);
            k *= 0x1b873593;
            h ^= k;
            h = Integer.rotateLeft(h, 13);
            h = h * 5 + 0xe6546b64;
        }
        int k = 0;
        switch (length & 3) {
            case 3:
                k ^= (data[end + 2] & 0xFF) << 16;
            // fall through
            case 2:
                k ^= (data[end + 1] & 0xFF) << 8;
            // fall through
            case 1:
                k ^= data[end] & 0xFF;
                k *= 0xcc9e2d51;
                k = Integer.rotateLeft(k, 15);
                k *= 0x1b873593;
                h ^= k;
            // fall through
            default:
        }
        h ^= length;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    /** The key group (0 .. groups-1) of serialized key bytes. */
    public static int keyGroup(byte[] key, int offset, int length, int groups) {
        return Math.floorMod(hash(key, offset, length), groups);
    }
}
