package io.duraflow.taskmanager;

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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Sums 0..999 per key {@code i % 10} over two sink tasks, each of which appends one line
 * {@code subtask=<i> attempt=<n>} to the file {@code marker} when it finishes: the lines count
 * how often the output was made visible.
 */
public final class MarkerJob implements DuraflowJob {
    @Override
    public void build(JobBuilder job, JobParameters params) {
        String marker = params.getRequired("marker");
        Flow<Tuple2<Long, Long>> sums = job.fromSource("Numbers", new SequenceSource(0, 1_000, 4))
                .map(i -> Tuple2.of(i % 10, i), Types.tuple(Types.LONG, Types.LONG)).name("Pair")
                .keyBy(Tuple2::f0, Types.LONG)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).name("Sum").parallelism(2);
        sums.sinkTo("Mark", new MarkerSink(marker));
        sums.collect("sums");
    }

    private record MarkerSink(String path) implements Sink<Tuple2<Long, Long>> {
        @Override
        public SinkWriter<Tuple2<Long, Long>> createWriter(SinkContext context) {
            String line = "subtask=" + context.subtaskIndex() + " attempt=" + context.attemptNumber() + "\n";
            return new SinkWriter<>() {
                @Override
                public void write(Tuple2<Long, Long> record) {}

                @Override
                public void finish() throws IOException {
                    Files.writeString(Path.of(path), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE, StandardOpenOption.APPEND);
                }
            };
        }

        @Override
        public String description() {
            return "marker(" + path + ")";
        }
    }
}
