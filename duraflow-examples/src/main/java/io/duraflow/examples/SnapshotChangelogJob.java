package io.duraflow.examples;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.InvalidJobParametersException;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.FileSink;
import io.duraflow.examples.cdc.SnapshotChangelogSource;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The checkpoint-rejection demo's job: a {@link SnapshotChangelogSource} (a table read
 * in chunks that decline checkpoints while open, then its change log) into the exactly-once
 * {@link FileSink}, one line per record ({@code snapshot,<row>} / {@code change,<change>}).
 *
 * <p>Parameters: {@code table}, {@code changelog} (files, required; {@link
 * io.duraflow.examples.cdc.CdcFiles#write} makes some), {@code output} (directory for the sink;
 * without it the records are collected as {@value #RESULT}), {@code chunk-rows} (1000), {@code
 * rate} (rows per second over all readers, 0 = unlimited), {@code max-chunk-time-ms} (60000: how
 * long one chunk may decline checkpoints before it declines hard), {@code max-hold-ms} (1000: how
 * long a reader waits at a chunk's end for the retry of a checkpoint it declined; 0 never waits),
 * {@code stall-chunk} (-1: the chunk that stops half way and never ends, for tests), {@code
 * reject} (true; false: a source that never declines, the benchmark's baseline).
 *
 * <p>The source is bounded, so run it with {@code -D execution.runtime-mode=streaming} to get
 * checkpoints.
 */
public final class SnapshotChangelogJob implements DuraflowJob {
    public static final String RESULT = "records";

    @Override
    public String description() {
        return "a table read in chunks that decline checkpoints while open, then its change log, into an exactly-once"
                + " file sink (the checkpoint-rejection demo)";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("SnapshotChangelog");
        Path table = existingFile(params, "table");
        Path changelog = existingFile(params, "changelog");
        SnapshotChangelogSource source = SnapshotChangelogSource.of(table, changelog)
                .withChunkRows(params.getInt("chunk-rows", 1000, 1, 100_000_000))
                .withRate(params.getLong("rate", SnapshotChangelogSource.UNLIMITED, 0, Long.MAX_VALUE))
                .withMaxChunkTimeMs(params.getLong("max-chunk-time-ms", 60_000, 0, Long.MAX_VALUE / 2))
                .withMaxHoldMs(params.getLong("max-hold-ms", 1000, 0, 3_600_000))
                .withStalledChunk(params.getInt("stall-chunk", -1, -1, Integer.MAX_VALUE));
        if (!params.getBoolean("reject", true)) {
            source = source.withoutRejection();
        }
        Flow<String> records = job.fromSource("Snapshot then changelog", source).uid("snapshot-changelog");
        if (params.has("output")) {
            records.sinkTo("Write records", FileSink.<String>of(params.getRequired("output")));
            return;
        }
        records.collect(RESULT);
    }

    private static Path existingFile(JobParameters params, String key) {
        Path file = Path.of(params.getRequired(key)).toAbsolutePath().normalize();
        if (!Files.isRegularFile(file)) {
            throw new InvalidJobParametersException("job parameter '" + key + "': no file at " + file);
        }
        return file;
    }
}
