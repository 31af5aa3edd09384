package io.duraflow.api.connectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.connectors.SourceHarness.RecordingEnumeratorContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class RangeSourcesTest {

    @Test
    void sequenceProducesEveryValueInOrderForRandomRangesAndSplitCounts() throws Exception {
        Random random = new Random(42);
        for (int run = 0; run < 300; run++) {
            long from = random.nextInt(2000) - 1000;
            long to = from + random.nextInt(run < 20 ? 5 : 3000);
            int splits = 1 + random.nextInt(run % 3 == 0 ? 40 : 8);
            List<Long> expected = LongStream.range(from, to).boxed().collect(Collectors.toList());

            assertThat(SourceHarness.readAll(new SequenceSource(from, to, splits)))
                    .as("sequence(%d,%d,splits=%d)", from, to, splits)
                    .isEqualTo(expected);
        }
    }

    @Test
    void sequenceSpreadsOverParallelReadersWithoutLossOrDuplicates() throws Exception {
        SequenceSource source = new SequenceSource(0, 100_000, 13);
        RecordingEnumeratorContext<RangeSplit> context = new RecordingEnumeratorContext<>(3);
        SplitEnumerator<RangeSplit> enumerator = source.createEnumerator(context);

        List<List<Long>> perReader = SourceHarness.readAll(source, enumerator, context, 3);

        List<Long> all = new ArrayList<>();
        perReader.forEach(all::addAll);
        all.sort(null);
        assertThat(all).isEqualTo(LongStream.range(0, 100_000).boxed().toList());
        assertThat(perReader).allSatisfy(records -> assertThat(records).isNotEmpty());
        assertThat(context.assigned).hasSize(13);
    }

    @Test
    void splitsAreContiguousBalancedAndNeverEmpty() {
        assertThat(RangeSplits.split(0, 10, 3))
                .containsExactly(new RangeSplit(0, 4), new RangeSplit(4, 7), new RangeSplit(7, 10));
        assertThat(RangeSplits.split(5, 7, 8)).containsExactly(new RangeSplit(5, 6), new RangeSplit(6, 7));
        assertThat(RangeSplits.split(3, 3, 4)).isEmpty();
        assertThat(RangeSplits.split(-5, 5, 1)).containsExactly(new RangeSplit(-5, 5));
    }

    @Test
    void theWholeLongRangeSplitsWithoutOverflow() {
        List<RangeSplit> splits = RangeSplits.split(Long.MIN_VALUE, Long.MAX_VALUE, 7);

        assertThat(splits).hasSize(7);
        assertThat(splits.get(0).from()).isEqualTo(Long.MIN_VALUE);
        assertThat(splits.get(6).to()).isEqualTo(Long.MAX_VALUE);
        for (int i = 1; i < splits.size(); i++) {
            assertThat(splits.get(i).from()).isEqualTo(splits.get(i - 1).to());
            assertThat(splits.get(i).from()).isGreaterThan(splits.get(i - 1).from());
        }
    }

    @Test
    void iteratesUpToLongMaxValueWithoutWrapping() throws Exception {
        assertThat(SourceHarness.readAll(new SequenceSource(Long.MAX_VALUE - 3, Long.MAX_VALUE, 2)))
                .containsExactly(Long.MAX_VALUE - 3, Long.MAX_VALUE - 2, Long.MAX_VALUE - 1);
    }

    @Test
    void rejectsBadConfiguration() {
        assertThatThrownBy(() -> new SequenceSource(5, 4, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after its end");
        assertThatThrownBy(() -> new SequenceSource(0, 4, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
        assertThatThrownBy(() -> GeneratedSource.of(" ", 0, 1, 1, Types.LONG, i -> i))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void generatedSourceMapsEveryIndexAcrossSplits() throws Exception {
        int n = 50_000;
        GeneratedSource<String> words = GeneratedSource.of("words", 0, n, 7, Types.STRING,
                i -> "w" + (i * 7919 % 100000));

        List<String> expected = LongStream.range(0, n).mapToObj(i -> "w" + (i * 7919 % 100000)).toList();
        assertThat(SourceHarness.readAll(words)).isEqualTo(expected);
        assertThat(words.producedType()).isSameAs(Types.STRING);
    }

    @Test
    void descriptionsIdentifyTheConfiguration() {
        assertThat(new SequenceSource(0, 1_000_000, 8).description()).isEqualTo("sequence(0,1000000,splits=8)");
        assertThat(GeneratedSource.of("words", 0, 10, 2, Types.STRING, i -> "x").description())
                .isEqualTo("generated(words,0,10,splits=2,type=string)");
    }

    @Test
    void enumeratorStateRestoresTheSplitsNotHandedOut() throws Exception {
        SequenceSource source = new SequenceSource(0, 100, 5);
        RecordingEnumeratorContext<RangeSplit> context = new RecordingEnumeratorContext<>(2);
        SplitEnumerator<RangeSplit> enumerator = source.createEnumerator(context);
        enumerator.handleSplitRequest(0);
        enumerator.handleSplitRequest(1);
        RangeSplit given = context.assigned.get(0);
        enumerator.addSplitsBack(List.of(given), 0);

        byte[] state = enumerator.snapshotState(7);
        RecordingEnumeratorContext<RangeSplit> restoredContext = new RecordingEnumeratorContext<>(2);
        SplitEnumerator<RangeSplit> restored = source.restoreEnumerator(restoredContext, state);
        for (int i = 0; i < 5; i++) {
            restored.handleSplitRequest(i % 2);
        }

        assertThat(restoredContext.assigned).containsExactly(new RangeSplit(0, 20), new RangeSplit(40, 60),
                new RangeSplit(60, 80), new RangeSplit(80, 100));
        assertThat(restoredContext.events.peekLast().split()).isNull();
        assertThat(restored.snapshotState(8)).isEqualTo(new SequenceSource(0, 0, 1)
                .createEnumerator(new RecordingEnumeratorContext<>(1)).snapshotState(8));
    }

    @Test
    void readingResumesFromARestoredEnumerator() throws Exception {
        SequenceSource source = new SequenceSource(0, 1000, 10);
        RecordingEnumeratorContext<RangeSplit> context = new RecordingEnumeratorContext<>(1);
        SplitEnumerator<RangeSplit> enumerator = source.createEnumerator(context);
        enumerator.handleSplitRequest(0);
        enumerator.handleSplitRequest(0);
        byte[] state = enumerator.snapshotState(1);

        RecordingEnumeratorContext<RangeSplit> restoredContext = new RecordingEnumeratorContext<>(1);
        List<Long> rest = SourceHarness.readAll(source, source.restoreEnumerator(restoredContext, state),
                restoredContext, 1).get(0);

        assertThat(rest).isEqualTo(LongStream.range(200, 1000).boxed().toList());
    }

    @Test
    void rangeSplitSerializerRoundTrips() {
        Random random = new Random(7);
        List<RangeSplit> splits = new ArrayList<>(List.of(new RangeSplit(Long.MIN_VALUE, Long.MAX_VALUE),
                new RangeSplit(0, 0), new RangeSplit(-1, 1)));
        for (int i = 0; i < 200; i++) {
            long a = random.nextLong();
            long b = random.nextLong();
            splits.add(new RangeSplit(Math.min(a, b), Math.max(a, b)));
        }
        DataWriter out = new DataWriter();
        for (RangeSplit split : splits) {
            assertThat(RangeSplit.SERIALIZER.fromBytes(RangeSplit.SERIALIZER.toBytes(split))).isEqualTo(split);
            RangeSplit.SERIALIZER.write(split, out);
        }
        DataReader in = new DataReader(out.toByteArray());
        for (RangeSplit split : splits) {
            assertThat(RangeSplit.SERIALIZER.read(in)).isEqualTo(split);
        }
        assertThat(in.hasRemaining()).isFalse();
    }

    @Test
    void splitIdNamesTheRange() {
        assertThat(new RangeSplit(-3, 12).splitId()).isEqualTo("range--3-12");
    }
}
