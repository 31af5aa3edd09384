package io.duraflow.spill;

import io.duraflow.util.Murmur;

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

    /** MurmurHash3 x86 32-bit of a byte range; see {@link Murmur#hash(byte[], int, int, int)}. */
    static int murmur3(byte[] data, int offset, int length, int seed) {
        return Murmur.hash(data, offset, length, seed);
    }
}
