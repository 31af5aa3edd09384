package io.duraflow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

class RecoveryDemoTest {

    /** Records every split handed out as (subtask, split); a subtask told "no more" gets null. */
    private static final class RecordingContext implements SplitEnumeratorContext<RangeSplit> {
        final int parallelism;
        final List<RangeSplit> bySubtask = new ArrayList<>();

        RecordingContext(int parallelism) {
            this.parallelism = parallelism;
            for (int i = 0; i < parallelism; i++) {
                bySubtask.add(null);
            }
        }

        @Override
        public int parallelism() {
            return parallelism;
        }

        @Override
        public void assignSplit(RangeSplit split, int subtask) {
            bySubtask.set(subtask, split);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {}

        @Override
        public <T> void callAsync(Callable<T> work, BiConsumer<T, Throwable> handler, long initialDelayMs,
                long periodMs) {
            throw new AssertionError("the demo's enumerator does no periodic work");
        }
    }

    private static List<RangeSplit> assign(long records, int sources) throws Exception {
        RecoveryDemo.PerSubtaskSource source = new RecoveryDemo.PerSubtaskSource(records, sources);
        RecordingContext context = new RecordingContext(sources);
        try (SplitEnumerator<RangeSplit> enumerator = source.createEnumerator(context)) {
            for (int subtask = sources - 1; subtask >= 0; subtask--) {
                enumerator.handleSplitRequest(subtask);
            }
        }
        return context.bySubtask;
    }

    @Test
    void subtaskIGetsRangeIWhateverOrderTheyAsk() throws Exception {
        assertThat(assign(10, 3)).containsExactly(new RangeSplit(0, 4), new RangeSplit(4, 7), new RangeSplit(7, 10));
    }

    @Test
    void theLargestAllowedRecordCountSplitsWithoutOverflow() throws Exception {
        long records = Long.MAX_VALUE / 4;
        List<RangeSplit> splits = assign(records, 1024);

        assertThat(splits).hasSize(1024).doesNotContainNull();
        assertThat(splits.get(0).from()).isZero();
        assertThat(splits.get(1023).to()).isEqualTo(records);
        for (int i = 1; i < splits.size(); i++) {
            assertThat(splits.get(i).from()).isEqualTo(splits.get(i - 1).to());
        }
    }

    @Test
    void restoredEnumeratorStillGivesEachSubtaskItsOwnRange() throws Exception {
        RecoveryDemo.PerSubtaskSource source = new RecoveryDemo.PerSubtaskSource(100, 4);
        RecordingContext context = new RecordingContext(4);
        SplitEnumerator<RangeSplit> enumerator = source.createEnumerator(context);
        enumerator.handleSplitRequest(2);
        enumerator.addSplitsBack(List.of(context.bySubtask.get(2)), 2);

        RecordingContext restoredContext = new RecordingContext(4);
        SplitEnumerator<RangeSplit> restored = source.restoreEnumerator(restoredContext, enumerator.snapshotState(1));
        for (int subtask = 0; subtask < 4; subtask++) {
            restored.handleSplitRequest(subtask);
        }

        assertThat(restoredContext.bySubtask).containsExactly(new RangeSplit(0, 25), new RangeSplit(25, 50),
                new RangeSplit(50, 75), new RangeSplit(75, 100));
    }
}
