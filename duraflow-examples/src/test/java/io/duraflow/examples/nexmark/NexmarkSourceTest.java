package io.duraflow.examples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.connectors.StrideSplit;
import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/** The source driven directly: an enumerator and readers with stand-in contexts, no cluster. */
class NexmarkSourceTest {
    private static final NexmarkConfig CONFIG = NexmarkConfig.defaults().withMaxOutOfOrdernessMs(3);

    @Test
    void readersTogetherEmitEveryEventOfTheGeneratorOnce() throws Exception {
        int parallelism = 3;
        NexmarkSource source = NexmarkSource.of(CONFIG).withEvents(2_000);
        Map<Integer, List<StrideSplit>> assigned = new HashMap<>();
        SplitEnumerator<StrideSplit> enumerator = source.createEnumerator(new EnumeratorContext(parallelism, assigned));
        enumerator.start();

        List<Event> emitted = new ArrayList<>();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            SourceReader<Event, StrideSplit> reader = source.createReader(new ReaderContext(subtask, parallelism));
            reader.start();
            reader.addSplits(assigned.get(subtask));
            reader.notifyNoMoreSplits();
            List<Event> own = new ArrayList<>();
            while (reader.pollNext(io.duraflow.api.source.ReaderOutput.of(own::add)) != InputStatus.END_OF_INPUT) {
                // A bounded unlimited reader never waits.
            }
            // One split per reader here: its events come in event-number order, so out of order
            // by at most the bound.
            long maxSeen = Long.MIN_VALUE / 2;
            for (Event event : own) {
                assertThat(event.timestamp()).isGreaterThanOrEqualTo(maxSeen - CONFIG.maxOutOfOrdernessMs());
                maxSeen = Math.max(maxSeen, event.timestamp());
            }
            emitted.addAll(own);
        }
        NexmarkGenerator generator = new NexmarkGenerator(CONFIG);
        List<Event> expected = new ArrayList<>();
        for (int n = 0; n < 2_000; n++) {
            expected.add(generator.event(n));
        }
        // Distinct events, as many as expected and the same set: each emitted exactly once.
        assertThat(new HashSet<>(expected)).hasSize(2_000);
        assertThat(emitted).hasSize(2_000);
        assertThat(new HashSet<>(emitted)).isEqualTo(new HashSet<>(expected));
    }

    @Test
    void endlessUnlessGivenACount() {
        NexmarkSource endless = NexmarkSource.of(CONFIG);
        assertThat(endless.boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(endless.events()).isEqualTo(NexmarkSource.UNLIMITED);
        assertThat(endless.withEvents(10).boundedness()).isEqualTo(Boundedness.BOUNDED);
        assertThat(endless.withEvents(10).withEvents(0).boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
    }

    @Test
    void theDescriptionHoldsTheConfigCountRateAndSplits() {
        NexmarkSource source = NexmarkSource.of(CONFIG).withEvents(500).withRate(1_000).withSplits(4);
        assertThat(source.rate()).isEqualTo(1_000);
        assertThat(source.config()).isEqualTo(CONFIG);
        assertThat(source.producedType()).isSameAs(Event.TYPE);
        assertThat(source.description()).contains("nexmark(" + CONFIG + ")", "count=500", "rate=1000", "splits=4")
                .contains("maxOutOfOrdernessMs=3");
        assertThat(NexmarkSource.of(CONFIG.withMaxOutOfOrdernessMs(4)).description())
                .isNotEqualTo(NexmarkSource.of(CONFIG).description());
    }

    @Test
    void negativeParametersAreRejected() {
        NexmarkSource source = NexmarkSource.of(CONFIG);
        assertThatThrownBy(() -> source.withEvents(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nexmark event count must not be negative (0: endless), got -1");
        assertThatThrownBy(() -> source.withRate(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nexmark rate must not be negative (0: unlimited), got -1");
        assertThatThrownBy(() -> source.withSplits(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nexmark split count must not be negative (0: one per reader), got -1");
    }

    private record EnumeratorContext(int parallelism, Map<Integer, List<StrideSplit>> assigned)
            implements SplitEnumeratorContext<StrideSplit> {
        @Override
        public void assignSplit(StrideSplit split, int subtask) {
            assigned.computeIfAbsent(subtask, s -> new ArrayList<>()).add(split);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {}

        @Override
        public <T> void callAsync(Callable<T> work, BiConsumer<T, Throwable> handler, long initialDelayMs,
                long periodMs) {
            throw new UnsupportedOperationException("the generator's enumerator does no I/O");
        }
    }

    private record ReaderContext(int subtaskIndex, int parallelism) implements SourceReaderContext {
        @Override
        public void sendSplitRequest() {}
    }
}
