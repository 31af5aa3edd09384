package io.duraflow.jobmanager.jobmaster;

import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.plan.JobGraph;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Sequence sources whose enumerators behave unlike the plain pull-style one: for coordinator tests. */
public final class TestSources {
    private TestSources() {}

    /** What a test enumerator does; each source below overrides part of it. */
    public enum Behaviour {
        /**
         * Push-style, as a Kafka enumerator: at start it assigns every split round-robin and tells
         * every subtask there are no more, without any request; splits given back go straight back
         * to the same subtask, again followed by no more. A request is answered with no more.
         */
        PUSH,
        /** Pull-style, but handling a split request throws. */
        THROW_ON_REQUEST,
        /** Pull-style, but start blocks until {@link #RELEASE_SLOW_START} counts down (at most 10 s). */
        SLOW_START,
        /** Pull-style, but says it cannot snapshot; taking or restoring a snapshot fails the test. */
        NO_SNAPSHOT,
        /** Pull-style, but says it never ends ({@link Boundedness#CONTINUOUS_UNBOUNDED}). */
        UNBOUNDED,
        /**
         * Pull-style, but its start asks for work once ({@code callAsync}, period 0) whose handler
         * throws, as a bounded Kafka enumerator whose first discovery finds no topic.
         */
        FAIL_FIRST_ASYNC
    }

    static volatile CountDownLatch RELEASE_SLOW_START = new CountDownLatch(0);

    /** A sequence of 0..1000 in 4 splits whose enumerator has this behaviour. */
    static Source<Long, RangeSplit> source(Behaviour behaviour) {
        return new BehavingSource(behaviour, new SequenceSource(0, 1_000, 4));
    }

    /** The three-stage job of {@link TestJobs#threeStages} over a source with this behaviour (4 splits). */
    public static JobGraph threeStages(Behaviour behaviour) {
        return TestJobs.threeStages(source(behaviour));
    }

    /** A source with this behaviour (2 tasks, 4 splits), collected. */
    public static JobGraph sourceOnly(Behaviour behaviour) {
        return TestJobs.sourceOnly(source(behaviour), 2);
    }

    private record BehavingSource(Behaviour behaviour, SequenceSource sequence) implements Source<Long, RangeSplit> {
        @Override
        public SplitEnumerator<RangeSplit> createEnumerator(SplitEnumeratorContext<RangeSplit> context)
                throws Exception {
            if (behaviour == Behaviour.PUSH) {
                return new PushEnumerator(context, RangeSplit.split(0, 1_000, 4));
            }
            SplitEnumerator<RangeSplit> splits = sequence.createEnumerator(context);
            return new SplitEnumerator<>() {
                @Override
                public void start() {
                    if (behaviour == Behaviour.SLOW_START) {
                        try {
                            RELEASE_SLOW_START.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    splits.start();
                    if (behaviour == Behaviour.FAIL_FIRST_ASYNC) {
                        context.callAsync(() -> "discovered", (result, error) -> {
                            throw new IllegalStateException("topic 'missing' not found");
                        }, 0, 0);
                    }
                }

                @Override
                public void handleSplitRequest(int subtask) {
                    if (behaviour == Behaviour.THROW_ON_REQUEST) {
                        throw new IllegalStateException("enumerator broke on a request of subtask " + subtask);
                    }
                    splits.handleSplitRequest(subtask);
                }

                @Override
                public void addSplitsBack(List<RangeSplit> returned, int subtask) {
                    splits.addSplitsBack(returned, subtask);
                }

                @Override
                public boolean supportsBatchSnapshot() {
                    return behaviour != Behaviour.NO_SNAPSHOT;
                }

                @Override
                public byte[] snapshotState(long checkpointId) throws Exception {
                    if (behaviour == Behaviour.NO_SNAPSHOT) {
                        throw new AssertionError("an enumerator that cannot snapshot was asked for its state");
                    }
                    return splits.snapshotState(checkpointId);
                }
            };
        }

        @Override
        public SplitEnumerator<RangeSplit> restoreEnumerator(SplitEnumeratorContext<RangeSplit> context,
                byte[] state) throws Exception {
            if (behaviour == Behaviour.PUSH) {
                // It never keeps a split: everything was pushed, and splits given back are pushed again.
                return new PushEnumerator(context, List.of());
            }
            if (behaviour == Behaviour.NO_SNAPSHOT) {
                throw new AssertionError("an enumerator that cannot snapshot was restored from a state");
            }
            return sequence.restoreEnumerator(context, state);
        }

        @Override
        public Boundedness boundedness() {
            return behaviour == Behaviour.UNBOUNDED ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
        }

        @Override
        public SourceReader<Long, RangeSplit> createReader(SourceReaderContext context) throws Exception {
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
            return behaviour + " " + sequence.description();
        }
    }

    private static final class PushEnumerator implements SplitEnumerator<RangeSplit> {
        private final SplitEnumeratorContext<RangeSplit> context;
        private final List<RangeSplit> splits;

        PushEnumerator(SplitEnumeratorContext<RangeSplit> context, List<RangeSplit> splits) {
            this.context = context;
            this.splits = splits;
        }

        @Override
        public void start() {
            for (int i = 0; i < splits.size(); i++) {
                context.assignSplit(splits.get(i), i % context.parallelism());
            }
            for (int subtask = 0; subtask < context.parallelism(); subtask++) {
                context.signalNoMoreSplits(subtask);
            }
        }

        @Override
        public void handleSplitRequest(int subtask) {
            context.signalNoMoreSplits(subtask);
        }

        @Override
        public void addSplitsBack(List<RangeSplit> returned, int subtask) {
            returned.forEach(split -> context.assignSplit(split, subtask));
            context.signalNoMoreSplits(subtask);
        }

        @Override
        public byte[] snapshotState(long checkpointId) {
            return new byte[0];
        }
    }
}
