package io.duraflow.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MurmurTest {
    /** The generic path: the key written by Types.LONG, then hashed. What checkpoints' key groups mean. */
    private static int viaBytes(long key, int groups) {
        DataWriter out = new DataWriter(16);
        Types.LONG.write(key, out);
        return Murmur.keyGroup(out.buffer(), 0, out.position(), groups);
    }

    @Test
    void theKeyGroupOfALongKeyIsThatOfItsSerializedBytesForEveryEncodingLength() {
        List<Long> keys = new ArrayList<>(List.of(0L, 1L, -1L, 63L, 64L, -64L, -65L, Long.MAX_VALUE, Long.MIN_VALUE,
                Long.MAX_VALUE - 1, Long.MIN_VALUE + 1));
        for (int bit = 0; bit < 64; bit++) {
            long power = 1L << bit;
            keys.addAll(List.of(power, power - 1, power + 1, -power, -power - 1, -power + 1));
        }
        Random random = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            keys.add(random.nextLong() >> random.nextInt(64)); // every encoding length, 1 to 10 bytes
        }
        for (long key = 0; key < 100_000; key++) {
            keys.add(key); // the benchmark's keys
        }
        for (long key : keys) {
            for (int groups : new int[] {1, 2, 7, 128, 32768}) {
                assertThat(Murmur.keyGroupOfLong(key, groups)).as("key %d, %d groups", key, groups)
                        .isEqualTo(viaBytes(key, groups));
            }
        }
    }
}
