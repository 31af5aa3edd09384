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
import io.duraflow.api.sink.Sink;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.Types;
import io.duraflow.cli.demo.ExactOutput;
import io.duraflow.examples.StreamingKeyedSum;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@link StreamingKeyedSum} with the exactly-once {@link FileSink} (same source, keys, state,
 * uids and output lines, so {@link StreamingKeyedSum#readOutput} and {@link ExactOutput} check
 * it), whose keyed function can hold one checkpoint open, for tests that must crash a process
 * <em>during</em> a checkpoint, after some output was committed: subtask {@code stall-subtask} of
 * "Sum per key", once it emitted {@code stall-after-results} results, takes its part of the next
 * checkpoint (which completes and commits them) and holds the one after: asked whether it can
 * take its part, it writes {@code <id> <pid>} (the checkpoint and the process it runs in) to the
 * file {@code stall-marker} and blocks its task thread (for at most {@link #MAX_STALL_MINUTES}
 * minutes, or until the task is cancelled). By then the checkpoint was triggered, the sources
 * and the other subtasks have acknowledged it (their state is in its {@code chk-<id>}
 * directory), and it cannot complete until that process dies. It happens once per marker file:
 * no later attempt stalls again.
 *
 * <p>With {@code stall-at-end=true} the subtask holds instead the first checkpoint it is asked for
 * after its input ended: its final checkpoint, the one that lets its sink commit the last records.
 * A sink chained after the function that writes nothing ("Input ended") learns the end in
 * {@link SinkWriter#finish()}, which the task calls when its input ended and before it takes any
 * checkpoint after the end. Such a checkpoint reaches the subtask only as the JobManager's own
 * trigger (no barrier comes through an input that ended), which it sends only once every source
 * task finished. (Counting records between checkpoints cannot tell: when the last records came
 * just before a checkpoint, the first checkpoint with none before it is the sources' own final
 * checkpoint, while they still run.)
 *
 * <p>Parameters: {@code records} (> 0), {@code keys}, {@code rate}, {@code output} (required) as
 * in {@link StreamingKeyedSum}; {@code stall-after-results} (default 0 = never stall),
 * {@code stall-at-end} (default false), {@code stall-subtask} (default 0), {@code stall-marker}
 * (a file, required with {@code stall-after-results}). Run it with
 * {@code -D execution.runtime-mode=streaming} and checkpointing on.
 */
public final class StallingKeyedSum implements DuraflowJob {
    static final long MAX_STALL_MINUTES = 3;

    /** What the marker says: the checkpoint held open and the pid of the TaskManager that holds it. */
    record Stall(long checkpointId, long pid) {
        static Stall read(Path marker) throws IOException {
            String[] fields = Files.readString(marker, StandardCharsets.UTF_8).trim().split(" ");
            return new Stall(Long.parseLong(fields[0]), Long.parseLong(fields[1]));
        }
    }

    @Override
    public String description() {
        return "StreamingKeyedSum into a FileSink whose keyed function can hold one checkpoint open (tests)";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("StallingKeyedSum");
        long records = params.getLong("records", 200_000, 1, 1_000_000_000L);
        long keys = params.getLong("keys", 100_000, 1, Integer.MAX_VALUE);
        long rate = params.getLong("rate", DataGeneratorSource.UNLIMITED, 0, Long.MAX_VALUE);
        long stallAfter = params.getLong("stall-after-results", 0, 0, Long.MAX_VALUE);
        boolean stallAtEnd = params.getBoolean("stall-at-end", false);
        int stallSubtask = params.getInt("stall-subtask", 0, 0, 1024);
        String marker = stallAfter > 0 ? params.getRequired("stall-marker") : "";
        DataGeneratorSource<Tuple2<Long, Long>> source = DataGeneratorSource
                .of("keyed-records(keys=" + keys + ")", StreamingKeyedSum.RECORD_TYPE,
                        i -> Tuple2.of(StreamingKeyedSum.key(i, keys), i))
                .withRate(rate).withCount(records);
        InputEnded inputEnded = new InputEnded();
        var sums = job.fromSource("Generate records", source).uid("generate-records")
                .keyBy(Tuple2::f0, Types.LONG)
                .process(new Stalling(new StreamingKeyedSum.SumPerKey(records, keys, -1), stallAfter, stallAtEnd,
                        stallSubtask, marker, inputEnded), StreamingKeyedSum.RESULT_TYPE)
                .name("Sum per key").uid("sum-per-key");
        sums.sinkTo("Write sums", new FileSink<Tuple3<Long, Long, Long>>(params.getRequired("output"),
                StreamingKeyedSum::formatLine));
        if (stallAtEnd) {
            sums.sinkTo("Input ended", inputEnded);
        }
    }

    /**
     * A sink that writes nothing and records, per subtask attempt, that its input ended. It is
     * chained with "Sum per key" (same task, same thread), whose {@link Stalling} function asks
     * {@link #ended}. One per plan; keyed by subtask and attempt in case tasks share a plan.
     */
    static final class InputEnded implements Sink<Tuple3<Long, Long, Long>> {
        private final Set<String> ended = ConcurrentHashMap.newKeySet();

        boolean ended(int subtask, int attempt) {
            return ended.contains(subtask + "/" + attempt);
        }

        @Override
        public SinkWriter<Tuple3<Long, Long, Long>> createWriter(SinkContext context) {
            String key = context.subtaskIndex() + "/" + context.attemptNumber();
            return new SinkWriter<>() {
                @Override
                public void write(Tuple3<Long, Long, Long> record) {
                }

                @Override
                public void finish() {
                    ended.add(key);
                }
            };
        }

        @Override
        public String description() {
            return "input-ended";
        }
    }

    /** Delegates to the real function, counting its results; holds one checkpoint in one subtask. */
    static final class Stalling extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple3<Long, Long, Long>> {
        private final StreamingKeyedSum.SumPerKey delegate;
        private final long stallAfter;
        private final boolean stallAtEnd;
        private final int stallSubtask;
        private final String marker;
        private final InputEnded inputEnded;
        private transient boolean mayStall;
        private transient int subtask;
        private transient int attempt;
        private transient long results;
        /** A checkpoint was asked for after {@code stallAfter} results: the next one stalls. */
        private transient boolean armed;
        private transient Collector<Tuple3<Long, Long, Long>> out;
        private transient Collector<Tuple3<Long, Long, Long>> counting;

        Stalling(StreamingKeyedSum.SumPerKey delegate, long stallAfter, boolean stallAtEnd, int stallSubtask,
                String marker, InputEnded inputEnded) {
            this.delegate = delegate;
            this.stallAfter = stallAfter;
            this.stallAtEnd = stallAtEnd;
            this.stallSubtask = stallSubtask;
            this.marker = marker;
            this.inputEnded = inputEnded;
        }

        @Override
        public void open(RuntimeContext context) throws Exception {
            delegate.open(context);
            mayStall = stallAfter > 0 && context.subtaskIndex() == stallSubtask && !Files.exists(Path.of(marker));
            subtask = context.subtaskIndex();
            attempt = context.attemptNumber();
            counting = result -> {
                results++;
                out.collect(result);
            };
        }

        @Override
        public void processElement(Tuple2<Long, Long> value, Context<Long> context,
                Collector<Tuple3<Long, Long, Long>> out) throws Exception {
            this.out = out;
            delegate.processElement(value, context, counting);
        }

        @Override
        public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
            if (!mayStall || results < stallAfter) {
                return delegate.isSnapshotAvailable(checkpointId);
            }
            if (stallAtEnd ? !inputEnded.ended(subtask, attempt) : !armed) {
                armed = true;
                return delegate.isSnapshotAvailable(checkpointId);
            }
            mayStall = false;
            writeMarker(Path.of(marker), checkpointId + " " + ProcessHandle.current().pid());
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

        private static void writeMarker(Path marker, String text) {
            try {
                Files.createDirectories(marker.toAbsolutePath().getParent());
                Path temp = marker.resolveSibling("." + marker.getFileName() + ".tmp");
                Files.writeString(temp, text, StandardCharsets.UTF_8);
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
