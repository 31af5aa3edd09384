package io.duraflow.bench;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the files a job's checkpoints create, engine-neutral, by scanning the checkpoint
 * directory while the job runs: Duraflow and Flink lay it out alike ({@code <dir>/<job
 * id>/chk-<n>/} for what only checkpoint n uses, with its {@code _metadata}; {@code shared/} for
 * incremental SST files several checkpoints use; {@code taskowned/}). Files are deleted once no
 * retained checkpoint needs them, often within a second, so a thread scans every {@link #SCAN}
 * and remembers every regular file it ever saw with its last size and modification time.
 *
 * <p>Which checkpoint created a file (rules, applied by {@link #perCheckpoint}):
 *
 * <ol>
 *   <li>A file under {@code chk-<n>/} belongs to checkpoint n.
 *   <li>Checkpoint n is complete when its {@code chk-<n>/_metadata} was seen; its completion time
 *       is that file's modification time. Only complete checkpoints are reported.
 *   <li>Any other file (under {@code shared/}, {@code taskowned/}) belongs to the first complete
 *       checkpoint whose completion time is at or after the file's modification time: with at most
 *       one checkpoint in flight (both engines' default), a checkpoint's uploads end before its
 *       {@code _metadata} is written, and the next one's begin after that. File times come from
 *       the kernel's coarse clock (a few ms), so an upload of checkpoint n+1 in the same few ms as
 *       n's {@code _metadata} would count for n; the scans cannot tell them apart.
 * </ol>
 *
 * <p>A file that lived for less than one scan interval is missed; checkpoint files live at least
 * until the next checkpoint completes (about a second here), so none is.
 */
public final class CheckpointFileCensus implements AutoCloseable {
    static final Duration SCAN = Duration.ofMillis(50);
    private static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d+)");
    private static final String METADATA = "_metadata";

    /** What a checkpoint created: files and their bytes, the part of them in {@code shared/}. */
    public record Created(long checkpointId, int files, long bytes, int sharedFiles, long sharedBytes) {}

    /** The median and largest over the complete checkpoints; all zero without any. */
    public record Summary(int checkpoints, int medianFiles, int maxFiles, long medianBytes, long maxBytes,
            int medianSharedFiles, int totalFiles) {}

    private record Seen(long size, long modifiedMillis) {}

    private final Path root;
    private final Map<Path, Seen> seen = new HashMap<>(); // only the scan thread, then close()
    private final Thread scanner;
    private volatile boolean running = true;
    private volatile IOException failure;
    private volatile long scans;

    private CheckpointFileCensus(Path root) {
        this.root = root;
        this.scanner = new Thread(this::scanLoop, "checkpoint-file-census");
        this.scanner.setDaemon(true);
    }

    /** Starts scanning {@code root} (it need not exist yet) every {@link #SCAN}. */
    public static CheckpointFileCensus start(Path root) {
        CheckpointFileCensus census = new CheckpointFileCensus(root);
        census.scanner.start();
        return census;
    }

    private void scanLoop() {
        while (running) {
            try {
                scanOnce();
                scans++; // only this thread writes it
                Thread.sleep(SCAN.toMillis());
            } catch (InterruptedException e) {
                return;
            } catch (IOException e) {
                failure = e;
                return;
            }
        }
    }

    private void scanOnce() throws IOException {
        if (!Files.isDirectory(root)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                if (attributes.isRegularFile()) {
                    seen.put(root.relativize(file), new Seen(attributes.size(), attributes.lastModifiedTime().toMillis()));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE; // deleted between listing and reading: seen before or too short-lived
            }
        });
    }

    /** How many scans the scan thread completed so far. */
    long scans() {
        return scans;
    }

    /** Stops scanning after one last scan; the figures are then final. */
    @Override
    public void close() throws IOException, InterruptedException {
        running = false;
        scanner.interrupt();
        scanner.join();
        if (failure != null) {
            throw new IOException("scanning checkpoint directory " + root + " failed", failure);
        }
        scanOnce();
    }

    /** Files and bytes each complete checkpoint created, by checkpoint id (the rules of the class). */
    public List<Created> perCheckpoint() {
        TreeMap<Long, Long> completedAt = new TreeMap<>();
        for (Map.Entry<Path, Seen> file : seen.entrySet()) {
            Long id = checkpointOf(file.getKey());
            if (id != null && file.getKey().getFileName().toString().equals(METADATA)) {
                completedAt.put(id, file.getValue().modifiedMillis());
            }
        }
        Map<Long, long[]> counts = new TreeMap<>(); // files, bytes, shared files, shared bytes
        for (Long id : completedAt.keySet()) {
            counts.put(id, new long[4]);
        }
        for (Map.Entry<Path, Seen> file : seen.entrySet()) {
            Long id = checkpointOf(file.getKey());
            boolean shared = false;
            if (id == null) {
                id = firstCompletedAtOrAfter(completedAt, file.getValue().modifiedMillis());
                shared = isShared(file.getKey());
            }
            long[] count = id == null ? null : counts.get(id);
            if (count == null) {
                continue; // an aborted checkpoint's, or written after the last complete one
            }
            count[0]++;
            count[1] += file.getValue().size();
            if (shared) {
                count[2]++;
                count[3] += file.getValue().size();
            }
        }
        List<Created> created = new ArrayList<>();
        counts.forEach((id, c) -> created.add(new Created(id, (int) c[0], c[1], (int) c[2], c[3])));
        return created;
    }

    /** Medians and maxima over {@link #perCheckpoint()}. */
    public Summary summary() {
        List<Created> created = perCheckpoint();
        if (created.isEmpty()) {
            return new Summary(0, 0, 0, 0, 0, 0, 0);
        }
        List<Long> files = new ArrayList<>();
        List<Long> bytes = new ArrayList<>();
        List<Long> sharedFiles = new ArrayList<>();
        int total = 0;
        for (Created c : created) {
            files.add((long) c.files());
            bytes.add(c.bytes());
            sharedFiles.add((long) c.sharedFiles());
            total += c.files();
        }
        return new Summary(created.size(), (int) median(files), (int) (long) Collections.max(files), median(bytes),
                Collections.max(bytes), (int) median(sharedFiles), total);
    }

    private static Long firstCompletedAtOrAfter(TreeMap<Long, Long> completedAt, long modifiedMillis) {
        for (Map.Entry<Long, Long> checkpoint : completedAt.entrySet()) {
            if (checkpoint.getValue() >= modifiedMillis) {
                return checkpoint.getKey();
            }
        }
        return null;
    }

    private static Long checkpointOf(Path relative) {
        for (Path part : relative) {
            Matcher m = CHECKPOINT_DIR.matcher(part.toString());
            if (m.matches()) {
                return Long.parseLong(m.group(1));
            }
        }
        return null;
    }

    private static boolean isShared(Path relative) {
        for (Path part : relative) {
            if (part.toString().equals("shared")) {
                return true;
            }
        }
        return false;
    }

    static long median(List<Long> values) {
        if (values.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
