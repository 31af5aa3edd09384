package io.duraflow.jobmanager.jobmaster;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.source.Source;
import io.duraflow.api.types.Types;
import io.duraflow.plan.JobGraph;

/** Small job graphs for the scheduler tests, built with the user API as a job would be. */
public final class TestJobs {
    public static final int SOURCE = 0;
    public static final int REDUCE = 1;
    public static final int FINAL = 2;
    public static final int DEFAULT_PARALLELISM = 2;

    private TestJobs() {}

    /**
     * WordCount's shape: vertex 0 reads a sequence (2 tasks), vertex 1 sums by key and collects
     * (parallelism decided at runtime). One exchange, edge 0.
     */
    public static JobGraph wordCount(int splits) {
        return wordCount(new SequenceSource(0, 1_000, splits));
    }

    private static JobGraph wordCount(Source<Long, RangeSplit> source) {
        JobBuilder job = new JobBuilder("word-count");
        job.fromSource("numbers", source).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), DEFAULT_PARALLELISM);
    }

    /**
     * Three vertices in a row: source (2 tasks) -> reduce (2 tasks, fixed) -> reduce (decided at
     * runtime) -> collect. Edge 0 goes 0 -> 1, edge 1 goes 1 -> 2.
     */
    public static JobGraph threeStages() {
        return threeStages(new SequenceSource(0, 1_000, 4));
    }

    /** {@link #threeStages()} over another source. */
    public static JobGraph threeStages(Source<Long, RangeSplit> source) {
        JobBuilder job = new JobBuilder("three-stages");
        job.fromSource("numbers", source).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(2)
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), DEFAULT_PARALLELISM);
    }

    /** {@link #wordCount}(4) over a source whose split enumerator cannot snapshot its state. */
    public static JobGraph wordCountWithoutSnapshots() {
        return wordCount(TestSources.source(TestSources.Behaviour.NO_SNAPSHOT));
    }

    /** One vertex: a source with {@code parallelism} tasks reading {@code splits} splits, collected. */
    public static JobGraph sourceOnly(int parallelism, int splits) {
        return sourceOnly(new SequenceSource(0, 1_000, splits), parallelism);
    }

    /** One vertex: {@code source} read by {@code parallelism} tasks, collected. */
    public static JobGraph sourceOnly(Source<Long, RangeSplit> source, int parallelism) {
        JobBuilder job = new JobBuilder("read-only");
        job.fromSource("numbers", source).parallelism(parallelism).collect("all");
        return JobGraph.compile(job.plan(), DEFAULT_PARALLELISM);
    }
}
