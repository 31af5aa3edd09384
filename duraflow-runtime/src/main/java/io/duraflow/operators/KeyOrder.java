package io.duraflow.operators;

import java.util.Arrays;

/**
 * The order of serialized keys in spill runs: by 32-bit murmur3 hash of the key bytes (as an
 * unsigned int), then by the key bytes compared lexicographically as unsigned bytes. Comparing
 * the hash first makes most comparisons one int compare; the byte comparison makes the order
 * total, so keys whose hashes collide still meet in the merge exactly when their bytes are equal.
 */
final class KeyOrder {
    /** Hash function of key bytes; replaceable in tests to force collisions. */
    @FunctionalInterface
    interface KeyHasher {
        int hash(byte[] bytes, int offset, int length);
    }

    static final KeyHasher MURMUR3 = (bytes, offset, length) -> murmur3(bytes, offset, length, 0);

    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private KeyOrder() {
    }

    static int compare(int hashA, byte[] a, int aOffset, int aLength, int hashB, byte[] b, int bOffset, int bLength) {
        int byHash = Integer.compareUnsigned(hashA, hashB);
        if (byHash != 0) {
            return byHash;
        }
        return Arrays.compareUnsigned(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
    }

    static boolean equal(int hashA, byte[] a, int aOffset, int aLength, int hashB, byte[] b, int bOffset, int bLength) {
        return hashA == hashB && Arrays.equals(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
    }

    /** MurmurHash3 x86 32-bit (Austin Appleby), little-endian blocks, as in SMHasher and Guava. */
    static int murmur3(byte[] data, int offset, int length, int seed) {
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
}
