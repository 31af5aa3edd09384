package io.duraflow.cli;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.sink.Sink;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A job with an observable side effect, for failover tests: it sums the numbers
 * {@code 0 .. numbers-1} per key {@code i % keys} (collected as {@value #RESULT}), and each task
 * of its sink appends exactly one line {@code subtask=<i> attempt=<n>} to the file
 * {@code marker} when it finishes (APPEND, then fsync). Counting the lines counts how often the
 * job's output was made visible, across JobManagers and their restarts.
 *
 * <p>Parameters: {@code marker} (required), {@code numbers} (default 10,000), {@code keys}
 * (default 10), {@code sinks} (parallelism of the summing and sink tasks, default 2),
 * {@code splits} (of the number range, default 8), {@code pause-ms} (the source sleeps this long
 * at every {@value #PAUSE_EVERY}th number, to make the job last; default 0).
 */
public final class SideEffectJob implements DuraflowJob {
    public static final String RESULT = "sums";
    static final String SOURCE = "Numbers";
    static final String SINK = "Mark";
    static final long PAUSE_EVERY = 1_000;

    @Override
    public String description() {
        return "sums numbers per key and leaves one marker line per finished sink task";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("SideEffectJob");
        String marker = params.getRequired("marker");
        long numbers = params.getLong("numbers", 10_000, 1, 1_000_000_000L);
        long keys = params.getLong("keys", 10, 1, 1_000_000_000L);
        int sinks = params.getInt("sinks", 2, 1, 64);
        int splits = params.getInt("splits", 8, 1, 10_000);
        long pauseMs = params.getLong("pause-ms", 0, 0, 60_000);
        Flow<Tuple2<Long, Long>> sums = job.fromSource(SOURCE, new SequenceSource(0, numbers, splits))
                .map(i -> {
                    if (pauseMs > 0 && i % PAUSE_EVERY == 0) {
                        Thread.sleep(pauseMs);
                    }
                    return Tuple2.of(i % keys, i);
                }, Types.tuple(Types.LONG, Types.LONG)).name("Pair")
                .keyBy(Tuple2::f0, Types.LONG)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).name("Sum").parallelism(sinks);
        sums.sinkTo(SINK, new MarkerSink(marker));
        sums.collect(RESULT);
    }

    /** key -> sum of the numbers with that key, computed independently of the engine. */
    static Map<Long, Long> expectedSums(long numbers, long keys) {
        Map<Long, Long> sums = new HashMap<>();
        for (long i = 0; i < numbers; i++) {
            sums.merge(i % keys, i, Long::sum);
        }
        return sums;
    }

    /** The marker file's lines; none if it does not exist (no sink task finished yet). */
    static List<String> markerLines(Path marker) throws IOException {
        return Files.exists(marker) ? Files.readAllLines(marker, StandardCharsets.UTF_8) : List.of();
    }

    /** Appends one line per finished sink task; writes nothing for the records themselves. */
    static final class MarkerSink implements Sink<Tuple2<Long, Long>> {
        private final String path;

        MarkerSink(String path) {
            this.path = Path.of(path).toAbsolutePath().normalize().toString();
        }

        @Override
        public SinkWriter<Tuple2<Long, Long>> createWriter(SinkContext context) {
            String line = "subtask=" + context.subtaskIndex() + " attempt=" + context.attemptNumber() + "\n";
            return new SinkWriter<>() {
                @Override
                public void write(Tuple2<Long, Long> record) {
                    // the records go to the collected result; this sink only marks that it finished
                }

                @Override
                public void finish() throws IOException {
                    // One write of a short line to a file opened with O_APPEND: concurrent tasks in other
                    // processes cannot interleave inside it.
                    try (FileChannel channel = FileChannel.open(Path.of(path), StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                        ByteBuffer bytes = ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8));
                        while (bytes.hasRemaining()) {
                            channel.write(bytes);
                        }
                        channel.force(true);
                    }
                }
            };
        }

        @Override
        public String description() {
            return "marker(" + path + ")";
        }
    }
}
