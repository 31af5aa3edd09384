package io.duraflow.cli;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.checkpoint.SnapshotAvailability;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.connectors.FileSink;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.Types;
import io.duraflow.examples.StreamingKeyedSum;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@link StreamingKeyedSum} with the exactly-once {@link FileSink} (same source, keys, state,
 * uids and output lines, so {@link StreamingKeyedSum#readOutput} and {@link ExactOutput} check
 * it), whose keyed function can hold one checkpoint open, for tests that must crash a process
 * <em>during</em> a checkpoint: subtask {@code stall-subtask} of "Sum per key", asked whether
 * it can take its part of checkpoint {@code stall-checkpoint}, first writes
 * {@code <stall-marker>/checkpoint-<id>.pid} (the id of the process it runs in) and then blocks
 * its task thread (for at most {@link #MAX_STALL_MINUTES} minutes, or until the task is
 * cancelled). By then the checkpoint was triggered, the sources and the other subtasks have
 * acknowledged it (their state is in its {@code chk-<id>} directory), and it cannot complete
 * until that process dies.
 *
 * <p>Parameters: {@code records} (required, > 0), {@code keys}, {@code rate}, {@code output}
 * (required) as in {@link StreamingKeyedSum}; {@code stall-checkpoint} (the checkpoint id, default
 * 0 = none), {@code stall-subtask} (default 0), {@code stall-marker} (a directory, required with
 * {@code stall-checkpoint}). Checkpoint ids never repeat within a job, so no later attempt
 * stalls again. Run it with {@code -D execution.runtime-mode=streaming} and checkpointing on.
 */
public final class StallingKeyedSum implements DuraflowJob {
    static final long MAX_STALL_MINUTES = 3;

    @Override
    public String description() {
        return "StreamingKeyedSum into a FileSink whose keyed function can hold one checkpoint open (tests)";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("StallingKeyedSum");
        long records = params.getLong("records", 300_000, 1, 1_000_000_000L);
        long keys = params.getLong("keys", 10_000, 1, Integer.MAX_VALUE);
        long rate = params.getLong("rate", DataGeneratorSource.UNLIMITED, 0, Long.MAX_VALUE);
        long stallCheckpoint = params.getLong("stall-checkpoint", 0, 0, Long.MAX_VALUE);
        int stallSubtask = params.getInt("stall-subtask", 0, 0, 1024);
        String marker = stallCheckpoint > 0 ? params.getRequired("stall-marker") : "";
        DataGeneratorSource<Tuple2<Long, Long>> source = DataGeneratorSource
                .of("keyed-records(keys=" + keys + ")", StreamingKeyedSum.RECORD_TYPE,
                        i -> Tuple2.of(StreamingKeyedSum.key(i, keys), i))
                .withRate(rate).withCount(records);
        job.fromSource("Generate records", source).uid("generate-records")
                .keyBy(Tuple2::f0, Types.LONG)
                .process(new Stalling(new StreamingKeyedSum.SumPerKey(records, keys, -1), stallCheckpoint,
                        stallSubtask, marker), StreamingKeyedSum.RESULT_TYPE)
                .name("Sum per key").uid("sum-per-key")
                .sinkTo("Write sums", new FileSink<Tuple3<Long, Long, Long>>(params.getRequired("output"),
                        StreamingKeyedSum::formatLine));
    }

    /** The marker the stalled subtask writes for checkpoint {@code checkpointId}. */
    static Path marker(Path markerDirectory, long checkpointId) {
        return markerDirectory.resolve("checkpoint-" + checkpointId + ".pid");
    }

    /** Delegates to the real function; holds checkpoint {@code stallCheckpoint} in one subtask. */
    static final class Stalling extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple3<Long, Long, Long>> {
        private final StreamingKeyedSum.SumPerKey delegate;
        private final long stallCheckpoint;
        private final int stallSubtask;
        private final String markerDirectory;
        private transient boolean stalls;

        Stalling(StreamingKeyedSum.SumPerKey delegate, long stallCheckpoint, int stallSubtask, String markerDirectory) {
            this.delegate = delegate;
            this.stallCheckpoint = stallCheckpoint;
            this.stallSubtask = stallSubtask;
            this.markerDirectory = markerDirectory;
        }

        @Override
        public void open(RuntimeContext context) throws Exception {
            delegate.open(context);
            stalls = stallCheckpoint > 0 && context.subtaskIndex() == stallSubtask;
        }

        @Override
        public void processElement(Tuple2<Long, Long> value, Context<Long> context,
                Collector<Tuple3<Long, Long, Long>> out) throws Exception {
            delegate.processElement(value, context, out);
        }

        @Override
        public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
            if (!stalls || checkpointId != stallCheckpoint) {
                return delegate.isSnapshotAvailable(checkpointId);
            }
            writeMarker(marker(Path.of(markerDirectory), checkpointId));
            try {
                // Nothing counts the latch down: the task holds the checkpoint until its process dies
                // or the task is cancelled (interrupted).
                new CountDownLatch(1).await(MAX_STALL_MINUTES, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return SnapshotAvailability.softFailure("interrupted while holding checkpoint " + checkpointId);
            }
            return delegate.isSnapshotAvailable(checkpointId);
        }

        private static void writeMarker(Path marker) {
            try {
                Files.createDirectories(marker.getParent());
                Path temp = marker.resolveSibling("." + marker.getFileName() + ".tmp");
                Files.writeString(temp, Long.toString(ProcessHandle.current().pid()), StandardCharsets.UTF_8);
                Files.move(temp, marker, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() throws Exception {
            delegate.close();
        }
    }
}
