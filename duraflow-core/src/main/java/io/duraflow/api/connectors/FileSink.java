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
 * Writes one line per record (UTF-8, ending in '\n') into part files of a directory, exactly once
 * through failures when checkpoints drive it (see {@link TwoPhaseCommittingSink} for the runtime
 * contract).
 *
 * <ul>
 *   <li><b>Writing.</b> Each writer writes into a hidden in-progress file
 *       {@code .part-<subtask>-<job>-<writer>-<n>.inprogress} ({@link PartFileName}: names are
 *       never reused), created at its first record. It rolls to a new file at every checkpoint
 *       and, with {@link #withMaxPartSizeBytes}, once a file reached that size. A rolled file is
 *       flushed and fsynced; a writer with no record since the last roll makes no file, so no
 *       empty part is ever committed.
 *   <li><b>Committing.</b> {@link CommittingSinkWriter#prepareCommit} returns a
 *       {@link PendingPart} per rolled file; committing renames it to
 *       {@code part-<subtask>-<job>-<writer>-<n>} with an atomic move and fsyncs the directory.
 *       Idempotent: an in-progress file that is gone while its final file exists was committed.
 *       Both gone is an error naming the files: the part was deleted or moved by someone else,
 *       and its records would be lost. So a consumer that moves or deletes committed parts must
 *       leave the parts of the latest completed checkpoint in place until a later checkpoint
 *       completed (they may be committed again after a restore).
 *   <li><b>Cleanup.</b> In-progress files no committable names (a writer that failed or was
 *       cancelled before its checkpoint completed, e.g. the part open when {@code cancel
 *       --savepoint} ended the job) are deleted by {@link #cleanUpLeftovers} when a job starts:
 *       subtask {@code i} of {@code p} deletes the in-progress files of the <em>lineage</em>
 *       (this job and every job whose state it restored, also under another job id: their tags,
 *       from the restored job lineage and the restored committables) whose subtask number
 *       {@code s} has {@code s mod p == i}, except those a restored committable names. Why it is
 *       safe: the restored committables are the union of every subtask's, so every file a
 *       restored checkpoint can still commit is spared; files of checkpoints after the restored
 *       one are never committed (their records are replayed; the runtime aborts pending
 *       checkpoints before restoring); no writer of an earlier job of the lineage runs any more
 *       (a savepoint is restored into the same directory only once its job ended, as after
 *       {@code cancel --savepoint}, else both jobs would write the same records); the writers of
 *       the new attempt use fresh writer ids, create files only after their own cleanup, and
 *       subtask {@code j != i} writes only subtask number {@code j}, which {@code i} never deletes
 *       since {@code j < p}. The {@code mod p} covers subtask numbers of any earlier parallelism,
 *       so a rescaled job leaves nothing behind. Not cleaned: files a writer of a fenced-off
 *       earlier attempt still creates after the cleanup (the next restart removes them), and
 *       files of jobs outside the lineage (other jobs may write into the same directory).
 *       A bounded job leaves none of its final attempt: its writers create no file after the
 *       final checkpoint, which commits every part prepared before it; and each subtask cleans
 *       up once more then, for files a fenced-off writer created after its start.
 *   <li><b>Batch mode</b> ({@link io.duraflow.api.sink.SinkWriter#finish()}): the writer's parts
 *       are committed when it finishes; {@code abort()} deletes the parts it has not handed over.
 *       Parts are committed one by one, so prefer {@link TextFileSink} for batch jobs that may
 *       retry a finishing task: it replaces {@code part-<subtask>} whole.
 * </ul>
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
    public Committer<PendingPart> createCommitter() {
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
