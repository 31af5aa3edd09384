package io.duraflow.jobmanager.scheduler;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import io.duraflow.plan.JobGraph;

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

    /** One vertex: a source with {@code parallelism} tasks reading {@code splits} splits, collected. */
    static JobGraph sourceOnly(int parallelism, int splits) {
        JobBuilder job = new JobBuilder("read-only");
        job.fromSource("numbers", new SequenceSource(0, 1_000, splits)).parallelism(parallelism).collect("all");
        return JobGraph.compile(job.plan(), DEFAULT_PARALLELISM);
    }
}
