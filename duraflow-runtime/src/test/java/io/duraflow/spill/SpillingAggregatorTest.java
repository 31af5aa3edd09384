package io.duraflow.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.Types;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillingAggregatorTest {
    @TempDir
    Path spillDir;

    private static final SpillingAggregator.Merger<Long> SUM = Long::sum;

    private SpillingAggregator<String, Long> summing(long budget) {
        return new SpillingAggregator<>(Types.STRING, Types.LONG, SUM, budget, spillDir);
    }

    /** Adds random partials, returning the reference result of a plain HashMap. */
    private static Map<String, Long> addRandom(SpillingAggregator<String, Long> aggregator, long seed, int adds, int keys)
            throws Exception {
        Random random = new Random(seed);
        Map<String, Long> reference = new HashMap<>();
        for (int i = 0; i < adds; i++) {
            String key = "key-" + random.nextInt(keys);
            long partial = random.nextInt(1000) - 500;
            reference.merge(key, partial, Long::sum);
            aggregator.add(key, partial, 40);
        }
        return reference;
    }

    private static <K, A> Map<K, A> collect(SpillingAggregator<K, A> aggregator) throws Exception {
        Map<K, A> result = new HashMap<>();
        aggregator.finish((key, acc) -> assertThat(result.put(key, acc)).as("key %s emitted twice", key).isNull());
        return result;
    }

    private List<Path> spillFiles() throws IOException {
        try (Stream<Path> files = Files.list(spillDir)) {
            return files.toList();
        }
    }

    @Test
    void tinyBudgetAndBigBudgetAgreeWithAHashMap() throws Exception {
        Map<String, Long> spilledResult;
        Map<String, Long> reference;
        try (SpillingAggregator<String, Long> tiny = summing(4_000)) {
            reference = addRandom(tiny, 11, 60_000, 5_000);
            assertThat(tiny.spillCount()).isGreaterThan(SpillingAggregator.DEFAULT_MAX_FAN_IN);
            spilledResult = collect(tiny);
            assertThat(tiny.spilledBytes()).isPositive();
        }
        try (SpillingAggregator<String, Long> big = summing(1L << 30)) {
            assertThat(addRandom(big, 11, 60_000, 5_000)).isEqualTo(reference);
            assertThat(collect(big)).isEqualTo(reference);
            assertThat(big.spillCount()).isZero();
            assertThat(big.spilledBytes()).isZero();
        }
        assertThat(spilledResult).isEqualTo(reference);
        assertThat(spillFiles()).isEmpty();
    }

    @Test
    void mergerSeesOlderPartialsOnTheLeftAcrossSpillsAndReMerges() throws Exception {
        SpillingAggregator.Merger<List<Integer>> concat = (left, right) -> {
            List<Integer> both = new ArrayList<>(left);
            both.addAll(right);
            return both;
        };
        Random random = new Random(5);
        Map<String, List<Integer>> result;
        try (SpillingAggregator<String, List<Integer>> aggregator = new SpillingAggregator<>(Types.STRING,
                Types.list(Types.INT), concat, 2_000, spillDir, KeyOrder.MURMUR3, 3)) {
            for (int i = 0; i < 20_000; i++) {
                aggregator.add("k" + random.nextInt(300), List.of(i), 30);
            }
            result = collect(aggregator);
        }
        assertThat(result.values().stream().mapToInt(List::size).sum()).isEqualTo(20_000);
        for (List<Integer> partials : result.values()) {
            assertThat(partials).isSorted();
        }
    }

    @Test
    void collidingHashesStillGroupByKeyBytes() throws Exception {
        KeyOrder.KeyHasher threeValues = (bytes, offset, length) -> length % 3;
        Random random = new Random(9);
        Map<String, Long> reference = new HashMap<>();
        Map<String, Long> result;
        try (SpillingAggregator<String, Long> aggregator = new SpillingAggregator<>(Types.STRING, Types.LONG, SUM,
                3_000, spillDir, threeValues, 4)) {
            for (int i = 0; i < 30_000; i++) {
                String key = Integer.toString(random.nextInt(2_000), 36);
                reference.merge(key, 1L, Long::sum);
                aggregator.add(key, 1L, 20);
            }
            assertThat(aggregator.spillCount()).isGreaterThan(10);
            result = collect(aggregator);
        }
        assertThat(result).isEqualTo(reference);
    }

    @Test
    void runFilesAreDeletedAfterFinish() throws Exception {
        try (SpillingAggregator<String, Long> aggregator = summing(1_000)) {
            addRandom(aggregator, 1, 2_000, 500);
            assertThat(spillFiles()).isNotEmpty();
            collect(aggregator);
            assertThat(spillFiles()).isEmpty();
        }
    }

    @Test
    void runFilesAreDeletedWhenTheConsumerFails() throws Exception {
        SpillingAggregator<String, Long> aggregator = summing(1_000);
        addRandom(aggregator, 2, 2_000, 500);
        assertThatThrownBy(() -> aggregator.finish((key, acc) -> {
            throw new IllegalStateException("sink down");
        })).hasMessage("sink down");
        aggregator.close();
        assertThat(spillFiles()).isEmpty();
    }

    @Test
    void closeAfterAFailingMergerDeletesRunFiles() throws Exception {
        SpillingAggregator<String, Long> aggregator = new SpillingAggregator<>(Types.STRING, Types.LONG,
                (left, right) -> {
                    throw new ArithmeticException("overflow");
                }, 500, spillDir);
        for (int i = 0; i < 100; i++) {
            aggregator.add("k" + i, 1L, 10);
        }
        assertThat(spillFiles()).isNotEmpty();
        assertThatThrownBy(() -> aggregator.add("k99", 1L, 10)).hasMessage("overflow");
        aggregator.close();
        assertThat(spillFiles()).isEmpty();
        assertThatThrownBy(() -> aggregator.add("k", 1L, 10)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void flippedByteInARunIsDetected() throws Exception {
        SpillingAggregator<String, Long> aggregator = summing(100_000);
        addRandom(aggregator, 3, 30_000, 20_000); // a few runs of several blocks each
        Path run = spillFiles().get(0);
        byte[] bytes = Files.readAllBytes(run);
        bytes[bytes.length / 2] ^= 0x10;
        Files.write(run, bytes);
        assertThatThrownBy(() -> collect(aggregator))
                .isInstanceOf(CorruptDataException.class)
                .hasMessageStartingWith("corrupt spill run " + run + " at offset ")
                .hasMessageEndingWith(": checksum mismatch");
        aggregator.close();
        assertThat(spillFiles()).isEmpty();
    }

    @Test
    void truncatedRunIsDetected() throws Exception {
        SpillingAggregator<String, Long> aggregator = summing(100_000);
        addRandom(aggregator, 4, 30_000, 20_000);
        Path run = spillFiles().get(0);
        byte[] bytes = Files.readAllBytes(run);
        Files.write(run, java.util.Arrays.copyOf(bytes, bytes.length - 12)); // drop the end marker
        assertThatThrownBy(() -> collect(aggregator))
                .isInstanceOf(CorruptDataException.class)
                .hasMessageContaining(run.toString())
                .hasMessageContaining("truncated");
        aggregator.close();
    }

    @Test
    void finishTwiceIsRefused() throws Exception {
        try (SpillingAggregator<String, Long> aggregator = summing(1_000)) {
            aggregator.add("a", 1L, 8);
            assertThat(collect(aggregator)).containsEntry("a", 1L);
            assertThatThrownBy(() -> collect(aggregator)).isInstanceOf(IllegalStateException.class);
        }
    }
}
