package io.duraflow.util;

/** Murmur3 32-bit hash of a byte range: spreads keys evenly over key groups. */
public final class Murmur {
    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;
    /** The seed of {@link #hash(byte[], int, int)}; part of how records map to key groups. */
    private static final int KEY_GROUP_SEED = 0x9747b28c;

    private Murmur() {}

    public static int hash(byte[] data, int offset, int length) {
        return hash(data, offset, length, KEY_GROUP_SEED);
    }

    /** MurmurHash3 x86 32-bit (Austin Appleby), little-endian blocks, as in SMHasher and Guava. */
    public static int hash(byte[] data, int offset, int length, int seed) {
        int h = seed;
        int blocksEnd = offset + (length & ~3);
        for (int i = offset; i < blocksEnd; i += 4) {
            int k = (data[i] & 0xFF) | ((data[i + 1] & 0xFF) << 8)
                    | ((data[i + 2] & 0xFF) << 16) | ((data[i + 3] & 0xFF) << 24);
            h ^= mixK(k);
            h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        }
        int k = 0;
        switch (length & 3) {
            case 3:
                k ^= (data[blocksEnd + 2] & 0xFF) << 16;
                // fall through
            case 2:
                k ^= (data[blocksEnd + 1] & 0xFF) << 8;
                // fall through
            case 1:
                k ^= data[blocksEnd] & 0xFF;
                h ^= mixK(k);
                break;
            default:
                break;
        }
        h ^= length;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    private static int mixK(int k) {
        k *= C1;
        k = Integer.rotateLeft(k, 15);
        return k * C2;
    }

    /** The key group (0 .. groups-1) of serialized key bytes. */
    public static int keyGroup(byte[] key, int offset, int length, int groups) {
        return Math.floorMod(hash(key, offset, length), groups);
    }

    /**
     * The key group of a {@code Long} key as {@code Types.LONG} writes it (a zig-zag var-long of 1
     * to 10 bytes), without writing it: the same group as {@link #keyGroup(byte[], int, int, int)}
     * of those bytes, which is what a checkpoint's key groups mean, so the two must never differ
     * ({@code MurmurTest} checks them against each other). The per-record path of keyed streams
     * over {@code Long} keys, on the producer (which consumer) and in the keyed backend.
     */
    public static int keyGroupOfLong(long key, int groups) {
        return Math.floorMod(hashOfSignedVarLong(key), groups);
    }

    /** {@link #hash(byte[], int, int)} of the zig-zag var-long encoding of {@code value}. */
    static int hashOfSignedVarLong(long value) {
        long rest = (value << 1) ^ (value >> 63);
        // The encoding's bytes, little-endian: bytes 0-7 in low, bytes 8-9 in high.
        long low = 0;
        long high = 0;
        int length = 0;
        while ((rest & ~0x7FL) != 0) {
            long b = (rest & 0x7F) | 0x80;
            if (length < 8) {
                low |= b << (length << 3);
            } else {
                high |= b << ((length - 8) << 3);
            }
            length++;
            rest >>>= 7;
        }
        if (length < 8) {
            low |= rest << (length << 3);
        } else {
            high |= rest << ((length - 8) << 3);
        }
        length++;
        int h = KEY_GROUP_SEED;
        int blocks = length >> 2; // at most 2: the encoding has at most 10 bytes
        for (int i = 0; i < blocks; i++) {
            h ^= mixK((int) (low >>> (i << 5)));
            h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        }
        int tailStart = blocks << 2;
        long tail = tailStart < 8 ? low >>> (tailStart << 3) : high >>> ((tailStart - 8) << 3);
        int k = 0;
        switch (length & 3) {
            case 3:
                k ^= ((int) (tail >>> 16) & 0xFF) << 16;
                // fall through
            case 2:
                k ^= ((int) (tail >>> 8) & 0xFF) << 8;
                // fall through
            case 1:
                k ^= (int) tail & 0xFF;
                h ^= mixK(k);
                break;
            default:
                break;
        }
        h ^= length;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
