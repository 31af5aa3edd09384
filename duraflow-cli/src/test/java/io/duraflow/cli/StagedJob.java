package io.duraflow.cli;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.examples.RecoveryDemo;

/**
 * A three-stage batch job whose stages run in waves, for JobManager failover tests:
 * <pre>
 *   numbers (sources tasks, one range each)  -> key i % keys, value RecoveryDemo.value(i)
 *   sum per key (aggregators tasks)           -> bucket key % 100
 *   sum per bucket (1 task)                   -> collected as "sums"
 * </pre>
 * Source tasks pause {@code source-pause-ms} every 1,000 numbers and aggregation tasks pause
 * {@code emit-pause-ms} for every 10th key they emit, so with fewer slots than tasks each stage
 * runs in waves and a test can stop the JobManager while some tasks of a stage have finished and
 * others run. The result equals {@link RecoveryDemo#expected}{@code (records, keys)}.
 *
 * <p>Parameters: {@code records} (default 4,000,000), {@code sources} (8), {@code keys}
 * (10,000), {@code aggregators} (4), {@code source-pause-ms} (1), {@code emit-pause-ms} (4).
 */
public final class StagedJob implements DuraflowJob {
    public static final String RESULT = "sums";
    static final int SOURCE = 0;
    static final int AGGREGATION = 1;
    static final int FINAL = 2;

    @Override
    public String description() {
        return "three stages that run in waves, for JobManager failover tests";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("StagedJob");
        long records = params.getLong("records", 4_000_000L, 0, Long.MAX_VALUE / 4);
        int sources = params.getInt("sources", 8, 1, 1024);
        long keys = params.getLong("keys", 10_000L, 1, Integer.MAX_VALUE);
        int aggregators = params.getInt("aggregators", 4, 1, 1024);
        long sourcePauseMs = params.getLong("source-pause-ms", 1, 0, 1_000);
        long emitPauseMs = params.getLong("emit-pause-ms", 4, 0, 1_000);
        job.fromSource("numbers", new RecoveryDemo.PerSubtaskSource(records, sources)).parallelism(sources)
                .map(i -> {
                    if (sourcePauseMs > 0 && i % 1_000 == 0) {
                        Thread.sleep(sourcePauseMs);
                    }
                    return Tuple2.of(i % keys, RecoveryDemo.value(i));
                }, Types.tuple(Types.LONG, Types.LONG)).name("key")
                .keyBy(Tuple2::f0, Types.LONG)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).name("sum per key").parallelism(aggregators)
                .map(t -> {
                    if (emitPauseMs > 0 && t.f0() % 10 == 0) {
                        Thread.sleep(emitPauseMs);
                    }
                    return Tuple2.of(t.f0() % 100, t.f1());
                }, Types.tuple(Types.LONG, Types.LONG)).name("bucket")
                .keyBy(Tuple2::f0, Types.LONG)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).name("sum per bucket").parallelism(1)
                .collect(RESULT);
    }
}
