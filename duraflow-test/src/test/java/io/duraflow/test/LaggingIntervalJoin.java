package io.duraflow.test;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.ProcessJoinFunction;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Interval-joins the left and right {@link LaggingEvents} of each key with bounds [{@value
 * #LOWER_MS}, {@value #UPPER_MS}) ms: a pair is emitted as {@code left,right,timestamp} (event
 * indexes, the later timestamp), each exactly once. Parameters: {@code records}, {@code keys},
 * {@code rate} (events per second over all readers; 0: unlimited).
 */
public final class LaggingIntervalJoin implements DuraflowJob {
    public static final String RESULT = "pairs";
    static final long LOWER_MS = -20;
    static final long UPPER_MS = 30;

    @Override
    public String description() {
        return "interval-joins two flows whose watermarks are a second apart";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        long records = params.getLong("records", 10_000, 1, Long.MAX_VALUE);
        long keys = params.getLong("keys", 13, 1, Integer.MAX_VALUE);
        job.name("LaggingIntervalJoin");
        long rate = params.getLong("rate", 0, 0, Long.MAX_VALUE);
        var flows = LaggingEvents.flows(job, records, keys, rate);
        flows[0].intervalJoin(flows[1]).between(Duration.ofMillis(LOWER_MS), Duration.ofMillis(UPPER_MS))
                .upperBoundExclusive()
                .process(new ProcessJoinFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>, String>() {
                    @Override
                    public void processElement(Tuple3<Long, Long, Long> left, Tuple3<Long, Long, Long> right,
                            Context context, Collector<String> out) {
                        out.collect(left.f2() + "," + right.f2() + "," + context.timestamp());
                    }
                }, Types.STRING).uid("join")
                .collect(RESULT);
    }

    /** The pairs a correct run emits, by brute force over the generated events, sorted. */
    public static List<String> expectedLines(long records, long keys) {
        List<Long> lefts = new ArrayList<>();
        List<Long> rights = new ArrayList<>();
        for (long i = 0; i < records; i++) {
            (LaggingEvents.side(i) == LaggingEvents.LEFT ? lefts : rights).add(i);
        }
        List<String> lines = new ArrayList<>();
        for (long left : lefts) {
            long leftTimestamp = LaggingEvents.timestamp(left);
            for (long right : rights) {
                long rightTimestamp = LaggingEvents.timestamp(right);
                long gap = rightTimestamp - leftTimestamp;
                if (LaggingEvents.key(left, keys) == LaggingEvents.key(right, keys) && gap >= LOWER_MS
                        && gap < UPPER_MS) {
                    lines.add(left + "," + right + "," + Math.max(leftTimestamp, rightTimestamp));
                }
            }
        }
        return lines.stream().sorted().toList();
    }
}
