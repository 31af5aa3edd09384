package io.duraflow.jobmanager.jobmaster.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Parallelism from input bytes, and the subpartition range of each task. */
class AdaptiveParallelismTest {

    @ParameterizedTest(name = "decide({0} bytes, {1} per task, min {2}, max {3}, {4} subpartitions) = {5}")
    @CsvSource({
            "0,    100, 1, 8, 128, 1",
            "1,    100, 1, 8, 128, 1",
            "100,  100, 1, 8, 128, 1",
            "101,  100, 1, 8, 128, 2",
            "350,  100, 1, 8, 128, 4",
            "800,  100, 1, 8, 128, 8",
            "801,  100, 1, 8, 128, 8",   // capped by max
            "0,    100, 3, 8, 128, 3",   // raised to min
            "5000, 100, 1, 64, 16, 16",  // no more tasks than subpartitions
            "0,    100, 10, 4, 128, 4",  // min above max: max wins
            "0,    100, 0, 0, 128, 1",   // bounds below 1: still one task
            "5000, 0,   1, 8, 128, 8",   // no bytes-per-task target: the maximum
            "5000, -1,  1, 8, 6, 6",
    })
    void decideTakesTheCeilingOfBytesPerTaskWithinTheBounds(long totalBytes, long bytesPerTask, int min, int max,
            int subpartitions, int expected) {
        assertThat(AdaptiveParallelism.decide(totalBytes, bytesPerTask, min, max, subpartitions)).isEqualTo(expected);
    }

    @Test
    void decideStaysWithinItsBoundsForAnyInput() {
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            long total = random.nextInt(4) == 0 ? 0 : (long) (random.nextDouble() * 1e13);
            long bytesPerTask = random.nextInt(10) == 0 ? -random.nextInt(3) : 1 + random.nextInt(1_000_000_000);
            int min = random.nextInt(20);
            int max = random.nextInt(300);
            int subpartitions = 1 + random.nextInt(1024);
            String call = "decide(" + total + ", " + bytesPerTask + ", " + min + ", " + max + ", " + subpartitions
                    + ")";

            int parallelism = AdaptiveParallelism.decide(total, bytesPerTask, min, max, subpartitions);

            int upper = Math.max(1, Math.min(max, subpartitions));
            int lower = Math.max(1, Math.min(min, upper));
            long wanted = bytesPerTask <= 0 ? upper : total / bytesPerTask + (total % bytesPerTask == 0 ? 0 : 1);
            long expected = Math.max(lower, Math.min(upper, wanted));
            assertThat(parallelism).as(call).isEqualTo((int) expected).isBetween(1, subpartitions);
        }
    }

    @Test
    void decideDoesNotOverflowForHugeTotals() {
        assertThat(AdaptiveParallelism.decide(Long.MAX_VALUE - 10, 1_000, 1, 8, 128)).isEqualTo(8);
    }

    @Test
    void rangesAreNonEmptyContiguousAndCoverEverySubpartitionForAnyBytes() {
        Random random = new Random(7);
        for (int i = 0; i < 5_000; i++) {
            int subpartitions = 1 + random.nextInt(200);
            int parallelism = 1 + random.nextInt(subpartitions);
            long[] bytes = randomBytes(random, subpartitions);
            String call = "ranges(" + Arrays.toString(bytes) + ", " + parallelism + ")";

            int[] bounds = AdaptiveParallelism.ranges(bytes, parallelism);

            assertThat(bounds).as(call).hasSize(parallelism + 1);
            assertThat(bounds[0]).as(call).isZero();
            assertThat(bounds[parallelism]).as(call).isEqualTo(subpartitions);
            for (int task = 0; task < parallelism; task++) {
                assertThat(bounds[task + 1]).as("%s: end of task %d's range", call, task).isGreaterThan(bounds[task]);
            }
            // No range holds more than an even share plus one subpartition's worth.
            long total = Arrays.stream(bytes).sum();
            long largest = Arrays.stream(bytes).max().orElse(0);
            for (int task = 0; task < parallelism; task++) {
                long range = Arrays.stream(bytes, bounds[task], bounds[task + 1]).sum();
                assertThat(range * parallelism).as("%s: bytes of task %d's range x parallelism", call, task)
                        .isLessThanOrEqualTo(total + largest * parallelism);
            }
        }
    }

    /** Several shapes: uniform, all zero, sparse, one hot subpartition, and anything. */
    private static long[] randomBytes(Random random, int n) {
        long[] bytes = new long[n];
        switch (random.nextInt(5)) {
            case 0 -> Arrays.fill(bytes, 1 + random.nextInt(1_000));
            case 1 -> { }
            case 2 -> {
                for (int i = 0; i < n; i++) {
                    bytes[i] = random.nextInt(8) == 0 ? random.nextInt(1_000_000) : 0;
                }
            }
            case 3 -> {
                Arrays.fill(bytes, random.nextInt(10));
                bytes[random.nextInt(n)] = 1_000_000_000L;
            }
            default -> {
                for (int i = 0; i < n; i++) {
                    bytes[i] = random.nextInt(1_000_000_000);
                }
            }
        }
        return bytes;
    }

    @Test
    void uniformBytesGiveRangesWhoseSizesDifferByAtMostOne() {
        for (int subpartitions = 1; subpartitions <= 128; subpartitions++) {
            long[] uniform = new long[subpartitions];
            Arrays.fill(uniform, 1_000);
            for (int parallelism = 1; parallelism <= subpartitions; parallelism++) {
                assertSizesDifferByAtMostOne(AdaptiveParallelism.ranges(uniform, parallelism), subpartitions);
                assertSizesDifferByAtMostOne(AdaptiveParallelism.evenRanges(subpartitions, parallelism), subpartitions);
            }
        }
    }

    private static void assertSizesDifferByAtMostOne(int[] bounds, int subpartitions) {
        int smallest = Integer.MAX_VALUE;
        int largest = 0;
        for (int task = 0; task + 1 < bounds.length; task++) {
            int size = bounds[task + 1] - bounds[task];
            smallest = Math.min(smallest, size);
            largest = Math.max(largest, size);
        }
        assertThat(largest - smallest).as("range sizes of %s over %d subpartitions", Arrays.toString(bounds),
                subpartitions).isLessThanOrEqualTo(1);
    }

    @Test
    void parallelismThatDoesNotFitTheSubpartitionsIsRejected() {
        assertThatThrownBy(() -> AdaptiveParallelism.ranges(new long[4], 5)).isInstanceOf(
                IllegalArgumentException.class).hasMessageContaining("parallelism 5").hasMessageContaining("4");
        assertThatThrownBy(() -> AdaptiveParallelism.ranges(new long[4], 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
