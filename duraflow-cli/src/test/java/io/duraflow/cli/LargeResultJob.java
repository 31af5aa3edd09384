package io.duraflow.cli;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Two independent one-task branches, for a JobManager failover with a large collected result:
 * "big" collects {@code records} strings of {@code record-bytes} each and finishes at once; "gated"
 * collects the numbers 0..9, but only once the file {@code gate} exists, so the job runs until a
 * test lets it end.
 */
public final class LargeResultJob implements DuraflowJob {
    static final String BIG = "big";
    static final String GATED = "gated";

    @Override
    public String description() {
        return "collects a large result in one task while another waits for a gate file";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("LargeResultJob");
        long records = params.getLong("records", 4_096, 1, 1_000_000);
        int recordBytes = params.getInt("record-bytes", 1_024, 1, 1 << 20);
        String gate = params.getRequired("gate");
        job.fromSource("big numbers", new SequenceSource(0, records, 1)).parallelism(1)
                .map(i -> record(i, recordBytes), Types.STRING).name("pad")
                .collect(BIG);
        job.fromSource("gated numbers", new SequenceSource(0, 10, 1)).parallelism(1)
                .map(i -> {
                    while (!Files.exists(Path.of(gate))) {
                        Thread.sleep(10);
                    }
                    return i;
                }, Types.LONG).name("wait for the gate")
                .collect(GATED);
    }

    /** Record {@code i} of "big": {@code "<i>:"} padded with 'x' to {@code bytes} characters. */
    static String record(long i, int bytes) {
        String head = i + ":";
        return head + "x".repeat(Math.max(0, bytes - head.length()));
    }
}
