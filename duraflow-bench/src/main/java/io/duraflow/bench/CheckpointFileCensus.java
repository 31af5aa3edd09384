package io.duraflow.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the files a job's checkpoints create, engine-neutral, by scanning the checkpoint directory
 * on a thread of its own while the job runs. Which checkpoint created a file: see
 * docs/design/benchmarks.md#checkpointfilecensus.
 */
public final class CheckpointFileCensus implements AutoCloseable {
    static final Duration SCAN = Duration.ofMillis(50);
    private static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d+)");
    private static final Pattern ID_LIKE = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}");
    private static final String METADATA = "_metadata";

    /**
     * What a checkpoint created: files and their bytes (last size seen), and of them those under
     * {@code shared/}, under {@code taskowned/} and under {@code chk-<n>/} ({@code _metadata}
     * included); {@code byDirectory}: files per directory, relative to the job's directory, with
     * {@code chk-<n>} written as such and a UUID-like directory name as {@code <id>}.
     */
    public record Created(long checkpointId, int files, long bytes, int sharedFiles, long sharedBytes,
            int taskOwnedFiles, int checkpointDirFiles, Map<String, Integer> byDirectory, boolean allTasksRunning) {
        public Created(long checkpointId, int files, long bytes, int sharedFiles, long sharedBytes) {
            this(checkpointId, files, bytes, sharedFiles, sharedBytes, 0, files - sharedFiles, Map.of(), true);
        }
    }

    /**
     * The mean, median and largest over the complete checkpoints taken while every task ran
     * ({@link #allTasksRunning}); {@code finalCheckpoints} were left out (taken while tasks
     * finished), {@code meanFilesAll} counts them too. All zero without any.
     */
    public record Summary(int checkpoints, int medianFiles, int maxFiles, long medianBytes, long maxBytes,
            int medianSharedFiles, int totalFiles, int medianTaskOwnedFiles, int medianCheckpointDirFiles,
            double meanFiles, int finalCheckpoints, double meanFilesAll) {}

    private record Seen(long firstSize, long firstModifiedMillis, long lastSize) {}

    private final CheckpointTree tree;
    /** Null without a metadata reader. */
    private final CheckpointSpace space;
    private final Map<String, LongSupplier> counters;
    // Only the scan thread touches these (and the space) until close() joined it.
    private final Map<String, Seen> seen = new HashMap<>();
    private final Map<String, Long> countersAtStart = new HashMap<>();
    private final Map<Long, Map<String, Long>> countersAtCompletion = new TreeMap<>();
    private final Thread scanner;
    private volatile boolean running = true;
    private volatile IOException failure;
    private volatile long scans;

    private CheckpointFileCensus(CheckpointTree tree, CheckpointSpace.MetadataReader reader,
            Map<String, LongSupplier> counters) {
        this.tree = tree;
        this.space = reader == null ? null : new CheckpointSpace(reader);
        this.counters = new LinkedHashMap<>(counters);
        this.scanner = new Thread(this::scanLoop, "checkpoint-file-census");
        this.scanner.setDaemon(true);
    }

    /** Starts scanning the local directory {@code root} (it need not exist yet) every {@link #SCAN}. */
    public static CheckpointFileCensus start(Path root) {
        return start(CheckpointTree.local(root), null, Map.of());
    }

    /**
     * Starts scanning {@code tree} every {@link #SCAN}; {@code reader} (may be null: no space
     * figures) reads each checkpoint's {@code _metadata}; {@code counters} are read at every scan.
     */
    public static CheckpointFileCensus start(CheckpointTree tree, CheckpointSpace.MetadataReader reader,
            Map<String, LongSupplier> counters) {
        CheckpointFileCensus census = new CheckpointFileCensus(tree, reader, counters);
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
        Map<String, CheckpointSpace.Present> present = new HashMap<>();
        tree.walk((relative, size, modified) -> {
            Seen before = seen.get(relative);
            Seen now = before == null ? new Seen(size, modified, size)
                    : new Seen(before.firstSize(), before.firstModifiedMillis(), size);
            seen.put(relative, now);
            present.put(relative, new CheckpointSpace.Present(size, now.firstModifiedMillis(), modified,
                    before == null ? -1 : before.lastSize()));
        });
        // Read after the walk: what a checkpoint counted happened before its _metadata was written, so
        // a _metadata this walk saw is never attributed counter values from before it.
        Map<String, Long> counterValues = new LinkedHashMap<>();
        counters.forEach((name, counter) -> counterValues.put(name, counter.getAsLong()));
        if (countersAtStart.isEmpty()) {
            countersAtStart.putAll(counterValues);
        }
        TreeMap<Long, String> metadataPresent = new TreeMap<>();
        for (String relative : present.keySet()) {
            Long id = checkpointOf(relative);
            if (id != null && fileName(relative).equals(METADATA)) {
                metadataPresent.put(id, relative);
                countersAtCompletion.putIfAbsent(id, counterValues);
            }
        }
        if (space != null) {
            space.sample(present, metadataPresent);
        }
    }

    /** How many scans the scan thread completed so far. */
    long scans() {
        return scans;
    }

    /** Stops scanning after one last scan; the figures are then final. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (!running) {
            return;
        }
        // Not interrupted: an HDFS listing would fail with the interrupt. The scan thread sees the
        // flag within one scan and one interval.
        running = false;
        scanner.join();
        if (failure != null) {
            throw new IOException("scanning checkpoint directory failed", failure);
        }
        scanOnce();
    }

    /** Files and bytes each complete checkpoint created, by checkpoint id (the rules of the class). */
    public List<Created> perCheckpoint() {
        TreeMap<Long, Long> completedAt = new TreeMap<>();
        for (Map.Entry<String, Seen> file : seen.entrySet()) {
            Long id = checkpointOf(file.getKey());
            if (id != null && fileName(file.getKey()).equals(METADATA)) {
                completedAt.put(id, file.getValue().firstModifiedMillis());
            }
        }
        Map<Long, long[]> counts = new TreeMap<>(); // files, bytes, shared files, shared bytes, task-owned, chk-<n>
        Map<Long, Map<String, Integer>> byDirectory = new TreeMap<>();
        for (Long id : completedAt.keySet()) {
            counts.put(id, new long[6]);
            byDirectory.put(id, new TreeMap<>());
        }
        for (Map.Entry<String, Seen> file : seen.entrySet()) {
            String relative = file.getKey();
            Long id = checkpointOf(relative);
            boolean inCheckpointDir = id != null;
            if (id == null) {
                id = firstCompletedAtOrAfter(completedAt, file.getValue().firstModifiedMillis());
            }
            long[] count = id == null ? null : counts.get(id);
            if (count == null) {
                continue; // an aborted checkpoint's, or written after the last complete one
            }
            long size = file.getValue().lastSize();
            count[0]++;
            count[1] += size;
            if (inCheckpointDir) {
                count[5]++;
            } else if (hasPart(relative, "shared")) {
                count[2]++;
                count[3] += size;
            } else if (hasPart(relative, "taskowned")) {
                count[4]++;
            }
            byDirectory.get(id).merge(directoryKey(relative), 1, Integer::sum);
        }
        List<Created> created = new ArrayList<>();
        counts.forEach((id, c) -> created.add(new Created(id, (int) c[0], c[1], (int) c[2], c[3], (int) c[4],
                (int) c[5], Map.copyOf(byDirectory.get(id)), space == null || space.allTasksRunning(id))));
        return created;
    }

    /** Medians and maxima over {@link #perCheckpoint()} (see {@link Summary}). */
    public Summary summary() {
        List<Created> all = perCheckpoint();
        List<Created> created = all.stream().filter(Created::allTasksRunning).toList();
        if (created.isEmpty()) {
            return new Summary(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, all.size(), 0);
        }
        List<Long> files = new ArrayList<>();
        List<Long> bytes = new ArrayList<>();
        List<Long> sharedFiles = new ArrayList<>();
        List<Long> taskOwnedFiles = new ArrayList<>();
        List<Long> checkpointDirFiles = new ArrayList<>();
        int total = 0;
        for (Created c : created) {
            files.add((long) c.files());
            bytes.add(c.bytes());
            sharedFiles.add((long) c.sharedFiles());
            taskOwnedFiles.add((long) c.taskOwnedFiles());
            checkpointDirFiles.add((long) c.checkpointDirFiles());
            total += c.files();
        }
        int totalAll = all.stream().mapToInt(Created::files).sum();
        return new Summary(created.size(), (int) median(files), (int) (long) Collections.max(files), median(bytes),
                Collections.max(bytes), (int) median(sharedFiles), total, (int) median(taskOwnedFiles),
                (int) median(checkpointDirFiles), (double) total / created.size(), all.size() - created.size(),
                (double) totalAll / all.size());
    }

    /**
     * Space per complete checkpoint taken while every task ran ({@link CheckpointSpace}); empty
     * without a metadata reader.
     */
    public List<CheckpointSpace.SpaceAtCheckpoint> space() {
        return space == null ? List.of() : space.perCheckpoint(checkpointsWhileAllTasksRan());
    }

    /** Medians and maxima over {@link #space()}. */
    public CheckpointSpace.SpaceSummary spaceSummary() {
        return space == null ? CheckpointSpace.SpaceSummary.NONE : space.summary(checkpointsWhileAllTasksRan());
    }

    /** The {@code _metadata} files the reader could not read, with the last error. */
    public Map<String, String> unreadableMetadata() {
        return space == null ? Map.of() : space.unreadable();
    }

    private Set<Long> checkpointsWhileAllTasksRan() {
        Set<Long> ids = new HashSet<>();
        for (Created c : perCheckpoint()) {
            if (c.allTasksRunning()) {
                ids.add(c.checkpointId());
            }
        }
        return ids;
    }

    /** Per complete checkpoint, each counter's increase since the previous one (see the class comment). */
    public Map<Long, Map<String, Long>> counterDeltas() {
        Map<Long, Map<String, Long>> deltas = new TreeMap<>();
        Set<Long> complete = new HashSet<>();
        for (Created c : perCheckpoint()) {
            complete.add(c.checkpointId());
        }
        Map<String, Long> previous = countersAtStart;
        for (Map.Entry<Long, Map<String, Long>> at : countersAtCompletion.entrySet()) {
            if (!complete.contains(at.getKey())) {
                continue;
            }
            Map<String, Long> delta = new LinkedHashMap<>();
            for (Map.Entry<String, Long> counter : at.getValue().entrySet()) {
                delta.put(counter.getKey(), counter.getValue() - previous.getOrDefault(counter.getKey(), 0L));
            }
            deltas.put(at.getKey(), delta);
            previous = at.getValue();
        }
        return deltas;
    }

    /**
     * The files of the checkpoint with the median file count, by directory: what "files per
     * checkpoint" consists of, e.g. {@code chk-<n>: 1, shared/subtask-0-4-v2: 1, taskowned/<id>: 1}.
     */
    public String describeMedianCheckpoint() {
        List<Created> created = new ArrayList<>(perCheckpoint().stream().filter(Created::allTasksRunning).toList());
        if (created.isEmpty()) {
            return "no complete checkpoint";
        }
        created.sort(java.util.Comparator.comparingInt(Created::files).thenComparingLong(Created::checkpointId));
        Created median = created.get(created.size() / 2);
        StringBuilder text = new StringBuilder("checkpoint " + median.checkpointId() + ", " + median.files()
                + " files:");
        new TreeMap<>(median.byDirectory()).forEach((directory, count) -> text.append(' ').append(directory)
                .append('=').append(count));
        return text.toString();
    }

    /** One line per complete checkpoint: files created by place, whether every task ran, space at it. */
    public List<String> perCheckpointLines() {
        Map<Long, CheckpointSpace.SpaceAtCheckpoint> spaceById = new HashMap<>();
        for (CheckpointSpace.SpaceAtCheckpoint s : space()) {
            spaceById.put(s.checkpointId(), s);
        }
        List<String> lines = new ArrayList<>();
        for (Created c : perCheckpoint()) {
            CheckpointSpace.SpaceAtCheckpoint s = spaceById.get(c.checkpointId());
            lines.add(String.format(java.util.Locale.ROOT, "chk %d: %d files (chk-<n>/ %d, shared/ %d, taskowned/ %d)%s"
                            + " %s", c.checkpointId(), c.files(), c.checkpointDirFiles(), c.sharedFiles(),
                    c.taskOwnedFiles(), c.allTasksRunning() ? "" : " [tasks finished]", s == null ? ""
                            : String.format(java.util.Locale.ROOT, "| on disk %,d B (with the next checkpoint's"
                                    + " files %,d B), live %,d B (retained %s): %.2f; highest until the next completion"
                                    + " %.2f (%.2f with the next checkpoint's files) over %d scans; files on disk %d,"
                                    + " referenced %d; after the last referenced segment of each file %,d B%s",
                                    s.diskBytesAtCompletion(), s.diskBytesAllAtCompletion(),
                                    s.liveBytesAtCompletion(), s.retainedAtCompletion(), s.amplificationAtCompletion(),
                                    s.highestAmplification(), s.highestAmplificationAll(), s.samples(),
                                    s.diskFilesAtCompletion(), s.liveFilesAtCompletion(), s.tailBytesAtCompletion(),
                                    s.missingFiles() == 0 ? ""
                                            : "; MISSING " + s.missingFiles() + " referenced file(s), e.g. "
                                            + space.missingExamples().get(c.checkpointId()))));
        }
        return lines;
    }

    private static Long firstCompletedAtOrAfter(TreeMap<Long, Long> completedAt, long modifiedMillis) {
        for (Map.Entry<Long, Long> checkpoint : completedAt.entrySet()) {
            if (checkpoint.getValue() >= modifiedMillis) {
                return checkpoint.getKey();
            }
        }
        return null;
    }

    static Long checkpointOf(String relative) {
        for (String part : relative.split("/")) {
            Matcher m = CHECKPOINT_DIR.matcher(part);
            if (m.matches()) {
                return Long.parseLong(m.group(1));
            }
        }
        return null;
    }

    private static boolean hasPart(String relative, String name) {
        for (String part : relative.split("/")) {
            if (part.equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static String fileName(String relative) {
        return relative.substring(relative.lastIndexOf('/') + 1);
    }

    /**
     * The directory of a file below the job's directory (the first level under the root, when the
     * root holds job directories; kept when the first level is already {@code chk-<n>}, {@code
     * shared} or {@code taskowned}), with {@code chk-<n>} and UUID-like names generalised.
     */
    static String directoryKey(String relative) {
        String[] parts = relative.split("/");
        int start = parts.length > 1 && !isLayoutName(parts[0]) ? 1 : 0;
        StringBuilder key = new StringBuilder();
        for (int i = start; i < parts.length - 1; i++) {
            String part = parts[i];
            if (CHECKPOINT_DIR.matcher(part).matches()) {
                part = "chk-<n>";
            } else {
                part = ID_LIKE.matcher(part).replaceAll("<id>");
            }
            key.append(key.length() == 0 ? "" : "/").append(part);
        }
        return key.length() == 0 ? "." : key.toString();
    }

    private static boolean isLayoutName(String part) {
        return part.equals("shared") || part.equals("taskowned") || CHECKPOINT_DIR.matcher(part).matches();
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
