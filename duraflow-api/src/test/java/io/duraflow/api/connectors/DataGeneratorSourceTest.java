package io.duraflow.api.connectors;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.connectors.SourceHarness.RecordingEnumeratorContext;
import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class DataGeneratorSourceTest {
    private static List<StrideSplit> dealt(DataGeneratorSource<Long> source, int parallelism, int subtask)
            throws Exception {
        RecordingEnumeratorContext<StrideSplit> context = new RecordingEnumeratorContext<>(parallelism);
        SplitEnumerator<StrideSplit> enumerator = source.createEnumerator(context);
        enumerator.start();
        List<StrideSplit> mine = new ArrayList<>();
        for (var event : context.events) {
            if (event.subtask() == subtask && event.split() != null) {
                mine.add(event.split());
            }
        }
        return mine;
    }

    @Test
    void countMakesItBoundedAndTheReadersTogetherEmitEveryIndexOnce() throws Exception {
        DataGeneratorSource<Long> source = DataGeneratorSource.of("n", Types.LONG, i -> i).withCount(10_001).withSplits(3);
        assertThat(source.boundedness()).isEqualTo(Boundedness.BOUNDED);
        assertThat(DataGeneratorSource.of("n", Types.LONG, i -> i).boundedness())
                .isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);

        List<Long> all = new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            GeneratorReader<Long> reader = new GeneratorReader<>(i -> i, DataGeneratorSource.UNLIMITED, () -> 0L);
            reader.addSplits(dealt(source, 2, subtask));
            reader.notifyNoMoreSplits();
            while (reader.pollNext(io.duraflow.api.source.ReaderOutput.of(all::add)) != InputStatus.END_OF_INPUT) {
                // polls until the splits end
            }
        }
        assertThat(all).hasSize(10_001).doesNotHaveDuplicates().allMatch(i -> i >= 0 && i < 10_001);
    }

    @Test
    void aReaderRestoredFromItsSnapshotContinuesExactlyWhereItWas() throws Exception {
        DataGeneratorSource<Long> source = DataGeneratorSource.of("n", Types.LONG, i -> i * 7919 % 100_000)
                .withCount(50_000).withSplits(4);
        List<StrideSplit> splits = dealt(source, 1, 0);
        List<Long> expected = new ArrayList<>();
        GeneratorReader<Long> straight = new GeneratorReader<>(i -> i * 7919 % 100_000, 0, () -> 0L);
        straight.addSplits(splits);
        straight.notifyNoMoreSplits();
        while (straight.pollNext(io.duraflow.api.source.ReaderOutput.of(expected::add)) != InputStatus.END_OF_INPUT) {
            // reads everything without a restart
        }

        List<Long> read = new ArrayList<>();
        List<StrideSplit> state = splits;
        boolean ended = false;
        for (int run = 0; !ended; run++) {
            GeneratorReader<Long> reader = new GeneratorReader<>(i -> i * 7919 % 100_000, 0, () -> 0L);
            reader.addSplits(state);
            reader.notifyNoMoreSplits();
            for (int poll = 0; poll < 3 && !ended; poll++) {
                ended = reader.pollNext(io.duraflow.api.source.ReaderOutput.of(read::add)) == InputStatus.END_OF_INPUT;
            }
            List<StrideSplit> snapshot = new ArrayList<>();
            for (StrideSplit split : reader.snapshotState(run)) {
                snapshot.add(StrideSplit.SERIALIZER.fromBytes(StrideSplit.SERIALIZER.toBytes(split)));
            }
            state = snapshot;
        }
        // Splits are read in turn, and a restored reader starts its turn again at its first
        // split: the order across splits may differ, each split's own order and the whole set not.
        assertThat(read).hasSize(50_000).containsExactlyInAnyOrderElementsOf(expected);
        for (int split = 0; split < 4; split++) {
            int residue = split;
            assertThat(read.stream().filter(v -> inverse(v) % 4 == residue).toList())
                    .isEqualTo(expected.stream().filter(v -> inverse(v) % 4 == residue).toList());
        }
    }

    /** The index i < 100000 that generated {@code i * 7919 % 100000}. */
    private static long inverse(long value) {
        return value * INVERSE_7919 % 100_000;
    }

    private static final long INVERSE_7919 = java.math.BigInteger.valueOf(7919)
            .modInverse(java.math.BigInteger.valueOf(100_000)).longValueExact();

    @Test
    void theRateLimitHoldsBackRecordsUntilTheyAreDueWithoutBlocking() throws Exception {
        long[] now = {0};
        GeneratorReader<Long> reader = new GeneratorReader<>(i -> i, 1_000, () -> now[0]);
        reader.addSplits(List.of(new StrideSplit(0, 0, 1, Long.MAX_VALUE)));
        List<Long> out = new ArrayList<>();

        assertThat(reader.pollNext(io.duraflow.api.source.ReaderOutput.of(out::add))).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(out).hasSize(1_000); // the start's slack: one second's worth at most
        assertThat(reader.pollNext(io.duraflow.api.source.ReaderOutput.of(out::add))).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(reader.isAvailable().toCompletableFuture()).isNotDone();

        now[0] = 500_000_000L; // half a second later: 500 more are due
        while (reader.pollNext(io.duraflow.api.source.ReaderOutput.of(out::add)) == InputStatus.MORE_AVAILABLE) {
            // takes what is due
        }
        assertThat(out).hasSize(1_500);
        assertThat(out.get(1_499)).isEqualTo(1_499L);
    }

    @Test
    void aSlowReaderWaitsForABatchInsteadOfWakingForEveryRecord() throws Exception {
        long[] now = {0};
        GeneratorReader<Long> reader = new GeneratorReader<>(i -> i, 200, () -> now[0]);
        reader.addSplits(List.of(new StrideSplit(0, 0, 1, Long.MAX_VALUE)));
        List<Long> out = new ArrayList<>();
        assertThat(reader.pollNext(io.duraflow.api.source.ReaderOutput.of(out::add))).isEqualTo(InputStatus.MORE_AVAILABLE); // the start's slack
        assertThat(reader.pollNext(io.duraflow.api.source.ReaderOutput.of(out::add))).isEqualTo(InputStatus.NOTHING_AVAILABLE);

        // 200 records/s: one is due every 5 ms, but the reader waits for 4 (20 ms, 50 wake-ups a second).
        assertThat(reader.nanosUntilAvailable()).isEqualTo(20_000_000L);
        now[0] = 20_000_000L;
        assertThat(reader.nanosUntilAvailable()).isZero();
        reader.pollNext(io.duraflow.api.source.ReaderOutput.of(out::add));
        assertThat(out).hasSize(204);
    }

    @Test
    void anEndlessSplitNearTheEndOfTheLongRangeEndsInsteadOfOverflowing() throws Exception {
        GeneratorReader<Long> reader = new GeneratorReader<>(i -> i, 0, () -> 0L);
        reader.addSplits(List.of(new StrideSplit(Long.MAX_VALUE - 10, Long.MAX_VALUE - 10, 4, Long.MAX_VALUE)));
        reader.notifyNoMoreSplits();
        List<Long> out = new ArrayList<>();
        assertThat(reader.pollNext(io.duraflow.api.source.ReaderOutput.of(out::add))).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(out).containsExactly(Long.MAX_VALUE - 10, Long.MAX_VALUE - 6, Long.MAX_VALUE - 2);
    }

    @Test
    void aRestoredEnumeratorDealsNothingAndEndsTheSplitsOfEveryReader() throws Exception {
        DataGeneratorSource<Long> source = DataGeneratorSource.of("n", Types.LONG, i -> i);
        RecordingEnumeratorContext<StrideSplit> first = new RecordingEnumeratorContext<>(2);
        SplitEnumerator<StrideSplit> enumerator = source.createEnumerator(first);
        enumerator.start();
        byte[] state = enumerator.snapshotState(1);

        RecordingEnumeratorContext<StrideSplit> second = new RecordingEnumeratorContext<>(3);
        source.restoreEnumerator(second, state).start();
        assertThat(second.assigned).isEmpty();
        assertThat(second.events).extracting(SourceHarness.Event::subtask).containsExactly(0, 1, 2);
        CompletableFuture<Void> never = new GeneratorReader<Long>(i -> i, 0, () -> 0L).isAvailable()
                .toCompletableFuture();
        assertThat(never).isNotDone();
    }
}
