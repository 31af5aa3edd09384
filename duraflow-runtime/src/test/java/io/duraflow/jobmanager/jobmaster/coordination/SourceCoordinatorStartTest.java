package io.duraflow.jobmanager.jobmaster.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.rpc.proto.OperatorEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The first start of a source's split enumerator runs off the main thread and touches none of
 * the coordinator's state: what the enumerator asks for meanwhile is checked at once and reaches
 * the coordinator only when the start is handed over on the main thread; a start never handed
 * over closes its own enumerator.
 */
class SourceCoordinatorStartTest {
    private static final RangeSplit A = new RangeSplit(0, 10);
    private static final RangeSplit B = new RangeSplit(10, 20);
    private static final RangeSplit C = new RangeSplit(20, 30);

    /** The user-code thread the start runs on. */
    private final ExecutorService userCode = Executors.newSingleThreadExecutor();
    private final ManualMailbox main = new ManualMailbox();
    /** What reached the subtasks, as "subtask: event". */
    private final List<String> sent = Collections.synchronizedList(new ArrayList<>());
    private final List<String> enumeratorEvents = Collections.synchronizedList(new ArrayList<>());
    private final List<String> heard = new ArrayList<>();
    private final List<Throwable> asyncFailures = new ArrayList<>();
    private final Set<Integer> running = Set.of(0);

    @AfterEach
    void stop() {
        userCode.shutdownNow();
    }

    private SourceCoordinator coordinator(Consumer<SplitEnumeratorContext<RangeSplit>> onStart) {
        SourceCoordinator.SubtaskGateway gateway = new SourceCoordinator.SubtaskGateway() {
            @Override
            public boolean isRunning(int subtask) {
                return running.contains(subtask);
            }

            @Override
            public boolean hasFinished(int subtask) {
                return false;
            }

            @Override
            public void send(int subtask, OperatorEvent event) {
                sent.add(subtask + ": " + (event.hasAddSplits() ? "add " + event.getAddSplits().getSplitsCount()
                        : event.getEventCase().name()));
            }
        };
        SourceCoordinator.AssignmentListener listener = new SourceCoordinator.AssignmentListener() {
            @Override
            public void assigned(int subtask, List<byte[]> splits) {
                heard.add("assigned " + subtask + " " + splits.size());
            }

            @Override
            public void returned(int subtask, int count) {
                heard.add("returned " + subtask + " " + count);
            }
        };
        return new SourceCoordinator("src", new StartingSource(onStart), 2, gateway, listener);
    }

    private void runOffTheMainThread(OperatorCoordinator.Start start) throws Exception {
        userCode.submit(() -> {
            start.run();
            return null;
        }).get();
    }

    @Test
    void whatTheEnumeratorAsksForWhileItStartsWaitsForTheHandOverOnTheMainThread() throws Exception {
        SourceCoordinator coordinator = coordinator(context -> {
            context.assignSplit(A, 0);
            context.assignSplit(B, 1);
            context.signalNoMoreSplits(0);
            context.callAsync(() -> "listed", (result, error) -> context.assignSplit(C, 0), 100, 0);
        });
        coordinator.async(new SourceCoordinator.AsyncServices(main, Runnable::run, asyncFailures::add));
        OperatorCoordinator.Start start = coordinator.start();

        runOffTheMainThread(start);

        assertThat(sent).as("nothing delivered from the user-code thread").isEmpty();
        assertThat(main.pending()).as("no periodic work scheduled before the hand-over").isZero();
        assertThat(enumeratorEvents).containsExactly("started off the main thread");

        start.handOver();

        assertThat(sent).as("the running subtask gets its split, then no more; the other waits")
                .containsExactly("0: add 1", "0: NO_MORE_SPLITS");
        coordinator.reportAssignments();
        assertThat(heard).containsExactly("assigned 0 1", "assigned 1 1");

        main.advance(100);

        assertThat(sent).as("the periodic work's handler runs on the main thread once live")
                .containsExactly("0: add 1", "0: NO_MORE_SPLITS", "0: add 1");
        assertThat(heard).containsExactly("assigned 0 1", "assigned 1 1", "assigned 0 1");
        assertThat(asyncFailures).isEmpty();
    }

    @Test
    void aWrongCallWhileTheEnumeratorStartsFailsTheStartAtOnce() {
        SourceCoordinator outOfRange = coordinator(context -> context.assignSplit(A, 2));
        assertThatThrownBy(() -> runOffTheMainThread(outOfRange.start())).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the split enumerator of src assigned split " + A.splitId()
                        + " to subtask 2, but the source has parallelism 2");

        SourceCoordinator noThreads = coordinator(context -> context.callAsync(() -> 1, (r, e) -> { }, 0, 0));
        assertThatThrownBy(() -> runOffTheMainThread(noThreads.start())).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("source 'src' asked for periodic work, but its coordinator was given no threads to run"
                        + " it on");
    }

    @Test
    void aStartThatIsNeverHandedOverClosesItsOwnEnumerator() throws Exception {
        SourceCoordinator coordinator = coordinator(context -> context.assignSplit(A, 0));
        OperatorCoordinator.Start start = coordinator.start();
        runOffTheMainThread(start);

        coordinator.close();
        assertThat(enumeratorEvents).as("the coordinator holds nothing of a start it was not handed")
                .containsExactly("started off the main thread");

        start.discard();
        assertThat(enumeratorEvents).containsExactly("started off the main thread", "closed");
        assertThat(sent).isEmpty();
    }

    /** A sequence source whose enumerator does what the test says at its start, and records its life. */
    private final class StartingSource implements Source<Long, RangeSplit> {
        private final Consumer<SplitEnumeratorContext<RangeSplit>> onStart;
        private final SequenceSource sequence = new SequenceSource(0, 30, 3);
        private final Thread mainThread = Thread.currentThread();

        StartingSource(Consumer<SplitEnumeratorContext<RangeSplit>> onStart) {
            this.onStart = onStart;
        }

        @Override
        public SplitEnumerator<RangeSplit> createEnumerator(SplitEnumeratorContext<RangeSplit> context) {
            return new SplitEnumerator<>() {
                @Override
                public void start() {
                    enumeratorEvents.add(Thread.currentThread() == mainThread ? "started on the main thread"
                            : "started off the main thread");
                    onStart.accept(context);
                }

                @Override
                public void handleSplitRequest(int subtask) {}

                @Override
                public void addSplitsBack(List<RangeSplit> splits, int subtask) {}

                @Override
                public byte[] snapshotState(long checkpointId) {
                    return new byte[0];
                }

                @Override
                public void close() {
                    enumeratorEvents.add("closed");
                }
            };
        }

        @Override
        public SplitEnumerator<RangeSplit> restoreEnumerator(SplitEnumeratorContext<RangeSplit> context,
                byte[] state) {
            return createEnumerator(context);
        }

        @Override
        public SourceReader<Long, RangeSplit> createReader(SourceReaderContext context) {
            return sequence.createReader(context);
        }

        @Override
        public SplitSerializer<RangeSplit> splitSerializer() {
            return sequence.splitSerializer();
        }

        @Override
        public TypeSerializer<Long> producedType() {
            return sequence.producedType();
        }

        @Override
        public String description() {
            return "starting " + sequence.description();
        }
    }
}
