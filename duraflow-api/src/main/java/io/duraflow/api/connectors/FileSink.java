package io.duraflow.api.connectors;

import io.duraflow.api.sink.Committer;
import io.duraflow.api.sink.CommittingSinkWriter;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.TwoPhaseCommittingSink;
import io.duraflow.api.types.TypeSerializer;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Writes one line per record into part files of a directory, exactly once through failures when
 * checkpoints drive it: hidden in-progress files, committed by an atomic rename. Writing,
 * committing, cleanup of leftovers and batch mode: see
 * docs/design/exactly-once-sinks-and-sources.md#filesink.
 */
public final class FileSink<T> implements TwoPhaseCommittingSink<T, PendingPart> {
    private final String directory;
    private final Function<T, String> formatter;
    private final long maxPartSizeBytes;

    public FileSink(String directory, Function<T, String> formatter) {
        this(ConnectorPaths.absolute(directory, "output directory").toString(), formatter, Long.MAX_VALUE);
    }

    private FileSink(String absoluteDirectory, Function<T, String> formatter, long maxPartSizeBytes) {
        if (maxPartSizeBytes < 1) {
            throw new IllegalArgumentException("max part size must be at least 1 byte, got " + maxPartSizeBytes);
        }
        this.directory = absoluteDirectory;
        this.formatter = formatter;
        this.maxPartSizeBytes = maxPartSizeBytes;
    }

    /** Writes {@code String.valueOf(record)}. */
    public static <T> FileSink<T> of(String directory) {
        return new FileSink<>(directory, String::valueOf);
    }

    /** Also rolls to a new part once one holds {@code maxPartSizeBytes} (the line that crosses it included). */
    public FileSink<T> withMaxPartSizeBytes(long maxPartSizeBytes) {
        return new FileSink<>(directory, formatter, maxPartSizeBytes);
    }

    @Override
    public CommittingSinkWriter<T, PendingPart> createWriter(SinkContext context) throws IOException {
        Path dir = Files.createDirectories(Path.of(directory));
        return new FileSinkWriter<>(dir, context.subtaskIndex(), PartFileName.jobTag(context.jobId()),
                PartFileName.newWriterId(), formatter, maxPartSizeBytes);
    }

    @Override
    public Committer<PendingPart> createCommitter(SinkContext context) {
        return new PartFileCommitter();
    }

    @Override
    public TypeSerializer<PendingPart> committableSerializer() {
        return PendingPart.SERIALIZER;
    }

    @Override
    public void cleanUpLeftovers(SinkContext context, List<PendingPart> restoredCommittables,
            Set<String> restoredJobIds) throws IOException {
        Path dir = Path.of(directory);
        Set<String> spared = new HashSet<>();
        Set<String> lineageTags = new HashSet<>();
        lineageTags.add(PartFileName.jobTag(context.jobId()));
        restoredJobIds.forEach(jobId -> lineageTags.add(PartFileName.jobTag(jobId)));
        for (PendingPart part : restoredCommittables) {
            String name = Path.of(part.inProgressPath()).getFileName().toString();
            spared.add(name);
            // A job whose parts the restored state holds is of the lineage (state of older builds has no lineage).
            PartFileName parsed = PartFileName.parseInProgress(name);
            if (parsed != null) {
                lineageTags.add(parsed.jobTag());
            }
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, ".part-*.inprogress")) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                PartFileName parsed = PartFileName.parseInProgress(name);
                if (parsed != null && lineageTags.contains(parsed.jobTag())
                        && parsed.subtask() % context.parallelism() == context.subtaskIndex()
                        && !spared.contains(name)) {
                    Files.deleteIfExists(entry);
                }
            }
        } catch (NoSuchFileException e) {
            // No output directory yet: nothing was written.
        }
    }

    @Override
    public String description() {
        return "file(" + directory + (maxPartSizeBytes == Long.MAX_VALUE ? "" : ",maxPartSize=" + maxPartSizeBytes)
                + ")";
    }
}
