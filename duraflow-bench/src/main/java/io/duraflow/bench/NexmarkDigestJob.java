package io.duraflow.bench;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.sink.Sink;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.examples.nexmark.NexmarkQueries;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * {@link NexmarkQueries} as the Nexmark benchmark runs it: the same source, watermarks and query
 * plans ({@link NexmarkQueries#plan}), with one difference: the results go
 * to a {@link DigestSink}, which digests them where they are produced ({@link NexmarkDigest})
 * instead of shipping millions of them to the client or to files, which would dominate q0 and q1.
 *
 * <p>Parameters: those of {@link NexmarkQueries} (without {@code output}) and {@code digest-dir}, a directory on this machine where each sink subtask writes its digest
 * when its input ends ({@link DigestSink#line}).
 */
public final class NexmarkDigestJob implements DuraflowJob {
    @Override
    public String description() {
        return "Nexmark queries with their results digested where they are produced (the Nexmark benchmark)";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        DigestSink<Object> sink = new DigestSink<>(params.getRequired("digest-dir"), params.getString("query", "q0"));
        @SuppressWarnings("unchecked")
        Flow<Object> results = (Flow<Object>) NexmarkQueries.plan(job, params);
        job.name(job.plan().jobName() + " (digested)");
        results.sinkTo("Digest results", sink);
    }

    /**
     * Digests its subtask's results; when the input ends, writes them as one text line (see
     * {@link #line}) to {@code digest-<subtask>.txt} in the directory (a temporary file renamed
     * over it, so a reader never sees half a line). A restarted attempt overwrites it; the
     * benchmark runs without restarts.
     */
    static final class DigestSink<T> implements Sink<T> {
        private final String dir;
        private final String query;

        DigestSink(String dir, String query) {
            this.dir = dir;
            this.query = query;
        }

        @Override
        public SinkWriter<T> createWriter(SinkContext context) {
            NexmarkDigest.Accumulator accumulator = new NexmarkDigest.Accumulator(query);
            Path file = Path.of(dir, "digest-" + context.subtaskIndex() + ".txt");
            return new SinkWriter<>() {
                @Override
                public void write(T record) {
                    accumulator.add(record);
                }

                @Override
                public void finish() throws Exception {
                    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
                    Files.writeString(temporary, line(accumulator), StandardCharsets.UTF_8);
                    Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
            };
        }

        @Override
        public String description() {
            return "nexmark-digest(" + query + "," + dir + ")";
        }
    }

    /** {@code <results> <hash sum, hex> <first result, epoch ms> <last result, epoch ms>}. */
    static String line(NexmarkDigest.Accumulator accumulator) {
        NexmarkDigest.Digest digest = accumulator.digest();
        return String.format(Locale.ROOT, "%d %x %d %d%n", digest.results(), digest.hashSum(),
                accumulator.firstResultAtMs(), accumulator.lastResultAtMs());
    }
}
