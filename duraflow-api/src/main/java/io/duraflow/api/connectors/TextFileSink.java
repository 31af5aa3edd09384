package io.duraflow.api.connectors;

import io.duraflow.api.sink.Sink;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.Function;

/**
 * Writes one line per record into {@code <directory>/part-<subtask>}. Each attempt writes a
 * hidden in-progress file and renames it over the part file when it finishes, so a retried
 * task replaces, never duplicates, its output.
 */
public final class TextFileSink<T> implements Sink<T> {
    private final String directory;
    private final Function<T, String> formatter;

    public TextFileSink(String directory, Function<T, String> formatter) {
        this.directory = ConnectorPaths.absolute(directory, "output directory").toString();
        this.formatter = formatter;
    }

    /** Writes {@code String.valueOf(record)}. */
    public static <T> TextFileSink<T> of(String directory) {
        return new TextFileSink<>(directory, String::valueOf);
    }

    @Override
    public SinkWriter<T> createWriter(SinkContext context) throws IOException {
        Path dir = Files.createDirectories(Path.of(directory));
        Path target = dir.resolve("part-" + context.subtaskIndex());
        Path inProgress = dir.resolve(".part-" + context.subtaskIndex() + ".attempt-" + context.attemptNumber()
                + ".inprogress");
        return new Writer0<>(Files.newBufferedWriter(inProgress, StandardCharsets.UTF_8), inProgress, target, formatter);
    }

    @Override
    public String description() {
        return "text-file(" + directory + ")";
    }

    private static final class Writer0<T> implements SinkWriter<T> {
        private final BufferedWriter out;
        private final Path inProgress;
        private final Path target;
        private final Function<T, String> formatter;
        private boolean closed;

        Writer0(BufferedWriter out, Path inProgress, Path target, Function<T, String> formatter) {
            this.out = out;
            this.inProgress = inProgress;
            this.target = target;
            this.formatter = formatter;
        }

        @Override
        public void write(T record) throws IOException {
            out.write(formatter.apply(record));
            out.write('\n');
        }

        @Override
        public void finish() throws IOException {
            closeOnce();
            Files.move(inProgress, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }

        @Override
        public void abort() throws IOException {
            closeOnce();
            Files.deleteIfExists(inProgress);
        }

        @Override
        public void close() throws IOException {
            closeOnce();
        }

        private void closeOnce() throws IOException {
            if (!closed) {
                closed = true;
                out.close();
            }
        }
    }
}
