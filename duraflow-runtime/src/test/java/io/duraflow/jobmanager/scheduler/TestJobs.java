package io.duraflow.jobmanager.scheduler;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.plan.JobGraph;
import java.util.List;

/** Small job graphs for the scheduler tests, built with the user API as a job would be. */
final class TestJobs {
    static final int SOURCE = 0;
    static final int REDUCE = 1;
    static final int FINAL = 2;
    static final int DEFAULT_PARALLELISM = 2;

    private TestJobs() {}

    /**
     * WordCount's shape: vertex 0 reads a sequence (2 tasks), vertex 1 sums by key and collects
     * (parallelism decided at runtime). One exchange, edge 0.
     */
    static JobGraph wordCount(int splits) {
        JobBuilder job = new JobBuilder("word-count");
        job.fromSource("numbers", new SequenceSource(0, 1_000, splits)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), DEFAULT_PARALLELISM);
    }

    /**
     * Three vertices in a row: source (2 tasks) -> reduce (2 tasks, fixed) -> reduce (decided at
     * runtime) -> collect. Edge 0 goes 0 -> 1, edge 1 goes 1 -> 2.
     */
    static JobGraph threeStages() {
        JobBuilder job = new JobBuilder("three-stages");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(2)
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), DEFAULT_PARALLELISM);
    }

    /** {@link #wordCount}(4) over a source whose split enumerator cannot snapshot its state. */
    static JobGraph wordCountWithoutSnapshots() {
        JobBuilder job = new JobBuilder("word-count");
        job.fromSource("numbers", new NoSnapshotSource(new SequenceSource(0, 1_000, 4))).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), DEFAULT_PARALLELISM);
    }

    /** A source whose enumerator says it cannot snapshot; taking or restoring a snapshot fails the test. */
    private record NoSnapshotSource(Source<Long, RangeSplit> sequence) implements Source<Long, RangeSplit> {
        @Override
        public SplitEnumerator<RangeSplit> createEnumerator(SplitEnumeratorContext<RangeSplit> context)
                throws Exception {
            SplitEnumerator<RangeSplit> splits = sequence.createEnumerator(context);
            return new SplitEnumerator<>() {
                @Override
                public void start() {
                    splits.start();
                }

                @Override
                public void handleSplitRequest(int subtask) {
                    splits.handleSplitRequest(subtask);
                }

                @Override
                public void addSplitsBack(List<RangeSplit> returned, int subtask) {
                    splits.addSplitsBack(returned, subtask);
                }

                @Override
                public boolean supportsBatchSnapshot() {
                    return false;
                }

                @Override
                public byte[] snapshotState(long checkpointId) {
                    throw new AssertionError("an enumerator that cannot snapshot was asked for its state");
                }
            };
        }

        @Override
        public SplitEnumerator<RangeSplit> restoreEnumerator(SplitEnumeratorContext<RangeSplit> context,
                byte[] state) {
            throw new AssertionError("an enumerator that cannot snapshot was restored from a state");
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
            return "no-snapshot " + sequence.description();
        }
    }

    /** One vertex: a source with {@code parallelism} tasks reading {@code splits} splits, collected. */
    static JobGraph sourceOnly(int parallelism, int splits) {
        JobBuilder job = new JobBuilder("read-only");
        job.fromSource("numbers", new SequenceSource(0, 1_000, splits)).parallelism(parallelism).collect("all");
        return JobGraph.compile(job.plan(), DEFAULT_PARALLELISM);
    }
}
