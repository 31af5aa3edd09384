package io.duraflow.api.connectors;

import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.TreeSet;

/**
 * Hands out the splits of the files that appear in a directory, for as long as the job runs. Called
 * only on the JobManager's main thread, except the listing work, which touches no field. Discovery,
 * assignment and checkpoints: see
 * docs/design/exactly-once-sinks-and-sources.md#directorywatchingenumerator.
 */
final class DirectoryWatchingEnumerator implements SplitEnumerator<FileSplit> {
    /** A file that counts as input and its size when it was listed. */
    record ListedFile(String name, long sizeBytes) {}

    private final SplitEnumeratorContext<FileSplit> context;
    private final Path directory;
    private final long splitSizeBytes;
    private final long discoveryIntervalMs;
    /** Names of every file planned into splits, as of the last listing handled. */
    private final TreeSet<String> seen;
    private final ArrayDeque<FileSplit> unassigned;
    /** Subtasks that asked for a split while none was queued, in the order they asked. */
    private final LinkedHashSet<Integer> waiting = new LinkedHashSet<>();

    DirectoryWatchingEnumerator(SplitEnumeratorContext<FileSplit> context, Path directory, long splitSizeBytes,
            Duration discoveryInterval, WatchedDirectoryState state) {
        this.context = context;
        this.directory = directory;
        this.splitSizeBytes = splitSizeBytes;
        this.discoveryIntervalMs = discoveryInterval.toMillis();
        this.seen = new TreeSet<>(state.seenFileNames());
        this.unassigned = new ArrayDeque<>(state.unassignedSplits());
    }

    /**
     * A new enumerator that has seen nothing.
     *
     * @throws FileNotFoundException {@code watched directory not found: /abs/path} (or "is not a directory")
     */
    static DirectoryWatchingEnumerator create(SplitEnumeratorContext<FileSplit> context, Path directory,
            long splitSizeBytes, Duration discoveryInterval) throws FileNotFoundException {
        if (!Files.isDirectory(directory)) {
            throw new FileNotFoundException(Files.exists(directory)
                    ? "watched path is not a directory: " + directory + "; a directory-watching source needs one"
                    : "watched directory not found: " + directory + "; create it before the job starts");
        }
        return new DirectoryWatchingEnumerator(context, directory, splitSizeBytes, discoveryInterval,
                new WatchedDirectoryState(List.of(), List.of()));
    }

    /** An enumerator from {@link #snapshotState} bytes; throws CorruptDataException naming the directory. */
    static DirectoryWatchingEnumerator restore(SplitEnumeratorContext<FileSplit> context, Path directory,
            long splitSizeBytes, Duration discoveryInterval, byte[] state) {
        return new DirectoryWatchingEnumerator(context, directory, splitSizeBytes, discoveryInterval,
                WatchedDirectoryState.fromBytes(state, directory.toString()));
    }

    static void validateInterval(Duration discoveryInterval) {
        if (discoveryInterval == null || discoveryInterval.toMillis() < 1) {
            throw new IllegalArgumentException("the discovery interval of a directory-watching source must be at"
                    + " least 1 ms, got " + discoveryInterval);
        }
    }

    @Override
    public void start() {
        context.callAsync(this::list, this::handleListing, 0, discoveryIntervalMs);
    }

    /** Runs on a worker thread: reads only the final {@link #directory}. */
    private List<ListedFile> list() throws IOException {
        List<ListedFile> files = new ArrayList<>();
        for (Path file : FileSplitPlanner.listVisibleFiles(directory)) {
            try {
                files.add(new ListedFile(file.getFileName().toString(), Files.size(file)));
            } catch (NoSuchFileException e) {
                // Deleted between the listing and the size: it is gone, as if listed a moment later.
            }
        }
        return files;
    }

    /** Back on the main thread with a listing (or why there is none). */
    private void handleListing(List<ListedFile> files, Throwable failure) {
        if (failure != null) {
            IOException cause = failure instanceof IOException io ? io : new IOException(failure);
            throw new UncheckedIOException("cannot list the directory " + directory + " that a file source watches: "
                    + failure + "; check that it exists and is readable", cause);
        }
        for (ListedFile file : files) {
            if (seen.add(file.name())) {
                unassigned.addAll(FileSplitPlanner.cut(directory.resolve(file.name()).toString(), file.sizeBytes(),
                        splitSizeBytes));
            }
        }
        serveWaiting();
    }

    @Override
    public void handleSplitRequest(int subtask) {
        FileSplit next = unassigned.poll();
        if (next == null) {
            waiting.add(subtask);
        } else {
            context.assignSplit(next, subtask);
        }
    }

    @Override
    public void addSplitsBack(List<FileSplit> splits, int subtask) {
        // The failed attempt's request died with it; its successor asks again.
        waiting.remove(subtask);
        for (int i = splits.size() - 1; i >= 0; i--) {
            unassigned.addFirst(splits.get(i));
        }
        serveWaiting();
    }

    private void serveWaiting() {
        var subtasks = waiting.iterator();
        while (subtasks.hasNext() && !unassigned.isEmpty()) {
            int subtask = subtasks.next();
            subtasks.remove();
            context.assignSplit(unassigned.poll(), subtask);
        }
    }

    @Override
    public byte[] snapshotState(long checkpointId) {
        return WatchedDirectoryState.of(seen, unassigned).toBytes();
    }

    /** Files taken so far (planned into splits, whether read yet or not). */
    int seenFileCount() {
        return seen.size();
    }
}
