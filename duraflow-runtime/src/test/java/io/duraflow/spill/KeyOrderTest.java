package io.duraflow.spill;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class KeyOrderTest {
    private static int murmur(byte[] bytes, int seed) {
        return KeyOrder.murmur3(bytes, 0, bytes.length, seed);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void murmur3MatchesReferenceVectors() {
        assertThat(murmur(new byte[0], 0)).isEqualTo(0);
        assertThat(murmur(new byte[0], 1)).isEqualTo(0x514E28B7);
        assertThat(murmur(new byte[0], 0xffffffff)).isEqualTo(0x81F16F39);
        assertThat(murmur(new byte[4], 0)).isEqualTo(0x2362F9DE);
        assertThat(murmur(new byte[] {0x21, 0x43, 0x65, (byte) 0x87}, 0)).isEqualTo(0xF55B516B);
        assertThat(murmur(new byte[] {0x21, 0x43, 0x65}, 0)).isEqualTo(0x7E4A8634);
        assertThat(murmur(new byte[] {0x21, 0x43}, 0)).isEqualTo(0xA0F7B07A);
        assertThat(murmur(new byte[] {0x21}, 0)).isEqualTo(0x72661CF4);
        assertThat(murmur(ascii("aaaa"), 0x9747b28c)).isEqualTo(0x5A97808A);
        assertThat(murmur(ascii("Hello, world!"), 0x9747b28c)).isEqualTo(0x24884CBA);
        assertThat(murmur(ascii("The quick brown fox jumps over the lazy dog"), 0x9747b28c)).isEqualTo(0x2FA826CD);
    }

    @Test
    void murmur3HonoursOffsetAndLength() {
        byte[] padded = ascii("xxHello, world!yy");
        assertThat(KeyOrder.murmur3(padded, 2, 13, 0x9747b28c)).isEqualTo(0x24884CBA);
    }

    private record Key(int hash, byte[] bytes) {
        int compareTo(Key other) {
            return KeyOrder.compare(hash, bytes, 0, bytes.length, other.hash, other.bytes, 0, other.bytes.length);
        }
    }

    @Test
    void orderIsTotalAndConsistentWhenHashesCollide() {
        int[] hashes = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE};
        Random random = new Random(3);
        List<Key> keys = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            byte[] bytes = new byte[random.nextInt(4)];
            random.nextBytes(bytes);
            keys.add(new Key(hashes[random.nextInt(hashes.length)], bytes));
        }
        for (Key a : keys) {
            for (Key b : keys) {
                int ab = a.compareTo(b);
                assertThat(Integer.signum(ab)).isEqualTo(-Integer.signum(b.compareTo(a)));
                boolean same = a.hash == b.hash && Arrays.equals(a.bytes, b.bytes);
                assertThat(ab == 0).isEqualTo(same);
                assertThat(KeyOrder.equal(a.hash, a.bytes, 0, a.bytes.length, b.hash, b.bytes, 0, b.bytes.length))
                        .isEqualTo(same);
            }
        }
        List<Key> sorted = new ArrayList<>(keys);
        sorted.sort(Key::compareTo);
        for (int i = 1; i < sorted.size(); i++) {
            Key previous = sorted.get(i - 1);
            Key current = sorted.get(i);
            int byHash = Integer.compareUnsigned(previous.hash, current.hash);
            assertThat(byHash).isLessThanOrEqualTo(0);
            if (byHash == 0) {
                assertThat(Arrays.compareUnsigned(previous.bytes, current.bytes)).isLessThanOrEqualTo(0);
            }
        }
        // Transitivity on a sorted list: every earlier key compares <= every later key.
        for (int i = 0; i < sorted.size(); i += 7) {
            for (int j = i; j < sorted.size(); j += 5) {
                assertThat(sorted.get(i).compareTo(sorted.get(j))).isLessThanOrEqualTo(0);
            }
        }
    }

    @Test
    void bytesCompareUnsigned() {
        byte[] low = {0x01};
        byte[] high = {(byte) 0xF0};
        assertThat(KeyOrder.compare(5, low, 0, 1, 5, high, 0, 1)).isNegative();
        assertThat(KeyOrder.compare(5, new byte[0], 0, 0, 5, low, 0, 1)).isNegative();
    }
}
