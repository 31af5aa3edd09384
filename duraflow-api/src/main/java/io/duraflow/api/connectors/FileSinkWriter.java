package io.duraflow.api.connectors;

import io.duraflow.api.sink.CommittingSinkWriter;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** A {@link FileSink} writer: one open in-progress part at a time; see {@link FileSink} for the rules. */
final class FileSinkWriter<T> implements CommittingSinkWriter<T, PendingPart> {
    private static final int BUFFER_BYTES = 64 << 10;

    private final Path directory;
    private final int subtask;
    private final String jobTag;
    private final String writerId;
    private final Function<T, String> formatter;
    private final long maxPartSizeBytes;

    private long nextPartNumber;
    /** The open part, or null until the next record arrives. */
    private OpenPart open;
    /** Parts rolled at the size limit since the last {@link #prepareCommit}. */
    private final List<PendingPart> rolled = new ArrayList<>();

    private record OpenPart(PartFileName name, Path inProgress, FileChannel channel, OutputStream out) {}

    private long openBytes;

    FileSinkWriter(Path directory, int subtask, String jobTag, String writerId, Function<T, String> formatter,
            long maxPartSizeBytes) {
        this.directory = directory;
        this.subtask = subtask;
        this.jobTag = jobTag;
        this.writerId = writerId;
        this.formatter = formatter;
        this.maxPartSizeBytes = maxPartSizeBytes;
    }

    @Override
    public void write(T record) throws IOException {
        byte[] line = formatter.apply(record).getBytes(StandardCharsets.UTF_8);
        if (open == null) {
            open = openPart();
            openBytes = 0;
        }
        open.out().write(line);
        open.out().write('\n');
        openBytes += line.length + 1;
        if (openBytes >= maxPartSizeBytes) {
            rolled.add(roll());
        }
    }

    private OpenPart openPart() throws IOException {
        PartFileName name = new PartFileName(subtask, jobTag, writerId, nextPartNumber++);
        Path path = directory.resolve(name.inProgressName());
        // CREATE_NEW: a name is never reused, and an existing file means two writers share an id.
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return new OpenPart(name, path, channel, new BufferedOutputStream(Channels.newOutputStream(channel),
                BUFFER_BYTES));
    }

    /** Closes the open part durably and names it for the committer. */
    private PendingPart roll() throws IOException {
        OpenPart part = open;
        open = null;
        try (OutputStream out = part.out()) {
            out.flush();
            // The committable may be committed after this machine crashed: its bytes must be on disk.
            part.channel().force(false);
        }
        return new PendingPart(part.inProgress().toString(), directory.resolve(part.name().finalName()).toString());
    }

    @Override
    public List<PendingPart> prepareCommit(long checkpointId) throws IOException {
        if (open != null) {
            rolled.add(roll());
        }
        List<PendingPart> prepared = List.copyOf(rolled);
        rolled.clear();
        return prepared;
    }

    /** Batch mode: commits every part at once. */
    @Override
    public void finish() throws IOException {
        new PartFileCommitter().commit(prepareCommit(-1));
    }

    /** Deletes the parts not handed over yet; parts returned by {@link #prepareCommit} stay for their checkpoint. */
    @Override
    public void abort() throws IOException {
        List<Path> unreferenced = new ArrayList<>();
        for (PendingPart part : rolled) {
            unreferenced.add(Path.of(part.inProgressPath()));
        }
        rolled.clear();
        if (open != null) {
            unreferenced.add(open.inProgress());
            closeOpen();
        }
        for (Path path : unreferenced) {
            Files.deleteIfExists(path);
        }
    }

    /** Closes without deleting or committing anything, as a crash would, minus the lost buffer. */
    @Override
    public void close() throws IOException {
        closeOpen();
    }

    private void closeOpen() throws IOException {
        if (open != null) {
            OpenPart part = open;
            open = null;
            part.out().close();
        }
    }
}
