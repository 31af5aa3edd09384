package io.duraflow.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The space part of a {@link CheckpointFileCensus}: bytes on disk against live bytes, sampled at
 * every scan by the census's scan thread only. See docs/design/benchmarks.md#checkpointspace.
 */
public final class CheckpointSpace {
    /** Reads of one {@code _metadata} that may fail (it is being written) before it counts as unreadable. */
    private static final int METADATA_READ_ATTEMPTS = 20;

    /** One referenced range of a file: path relative to the census root where it lies under it. */
    public record Segment(String file, long offset, long length) {}

    /**
     * What a checkpoint's {@code _metadata} refers to: the segments, and how many subtask states
     * with state it holds (fewer than the run's most once tasks began to finish: a bounded job's
     * last checkpoints leave finished tasks out).
     */
    public record References(Set<Segment> segments, int subtaskStates) {}

    /** Reads a checkpoint's {@code _metadata} (an engine's own reader). */
    public interface MetadataReader {
        /**
         * @param relativePath the {@code _metadata} file, relative to the census root
         * @throws IOException if it cannot be read now (e.g. still being written)
         */
        References read(String relativePath) throws IOException;
    }

    /**
     * Space at a checkpoint: at its completion (bytes on disk without and with the next
     * checkpoint's files), and the highest amplification (bytes on disk / live bytes) over the scans
     * while it was the latest complete checkpoint, without and with the next checkpoint's files.
     */
    public record SpaceAtCheckpoint(long checkpointId, long diskBytesAtCompletion, long diskBytesAllAtCompletion,
            long liveBytesAtCompletion, int diskFilesAtCompletion, int liveFilesAtCompletion,
            List<Long> retainedAtCompletion, double highestAmplification, double highestAmplificationAll,
            int samples, int missingFiles, long tailBytesAtCompletion) {
        public double amplificationAtCompletion() {
            return liveBytesAtCompletion == 0 ? Double.NaN : (double) diskBytesAtCompletion / liveBytesAtCompletion;
        }
    }

    /**
     * Medians and maxima of {@link SpaceAtCheckpoint}; NaN without samples. {@code
     * checkpointsMissingFiles}: checkpoints a file of which was missing while they were the latest.
     */
    public record SpaceSummary(int checkpoints, double medianAmplification, double maxAmplification,
            double maxHighestAmplification, double maxHighestAmplificationAll, long medianDiskBytes,
            long maxDiskBytes, long medianLiveBytes, int unreadableMetadata, int checkpointsMissingFiles) {
        static final SpaceSummary NONE = new SpaceSummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, 0, 0, 0,
                0);
    }

    /**
     * A file in one scan: its size now, its modification time when first seen and now, and its
     * size at the scan before (-1: not seen then).
     */
    record Present(long sizeBytes, long firstModifiedMillis, long modifiedMillis, long previousSizeBytes) {
        Present(long sizeBytes, long firstModifiedMillis) {
            this(sizeBytes, firstModifiedMillis, firstModifiedMillis, -1);
        }
    }

    /**
     * {@code tailBytes}: in the files a retained checkpoint refers to, the bytes after the last
     * segment it refers to (dead, or appended since for the next checkpoint: a scan cannot tell).
     */
    private record Sample(long latestId, List<Long> retained, long diskBytes, long diskBytesAll, int diskFiles,
            long liveBytes, int liveFiles, int missingFiles, long tailBytes) {}

    private final MetadataReader reader;
    private final Map<Long, References> referencesById = new HashMap<>();
    private final Map<String, Integer> failedReads = new HashMap<>();
    private final Map<String, String> unreadable = new LinkedHashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    /** A missing file per checkpoint, for the report. */
    private final Map<Long, String> missingExample = new TreeMap<>();

    CheckpointSpace(MetadataReader reader) {
        this.reader = reader;
    }

    /**
     * One scan: the files present, and of them the {@code _metadata} files by checkpoint id. No
     * sample while a present {@code _metadata} cannot be read (yet).
     */
    void sample(Map<String, Present> present, TreeMap<Long, String> metadataPresent) {
        if (metadataPresent.isEmpty()) {
            return;
        }
        for (Map.Entry<Long, String> metadata : metadataPresent.entrySet()) {
            if (unreadable.containsKey(metadata.getValue())) {
                return; // what this checkpoint refers to is unknown: no sample while it is retained
            }
            if (!referencesById.containsKey(metadata.getKey())) {
                try {
                    referencesById.put(metadata.getKey(), reader.read(metadata.getValue()));
                } catch (IOException | RuntimeException e) {
                    // Still being written (read again at the next scan), or unreadable for good.
                    if (failedReads.merge(metadata.getValue(), 1, Integer::sum) >= METADATA_READ_ATTEMPTS) {
                        unreadable.put(metadata.getValue(), e.toString());
                    }
                    return;
                }
            }
        }
        long latest = metadataPresent.lastKey();
        long completedAt = present.get(metadataPresent.get(latest)).firstModifiedMillis();
        Set<Segment> live = new HashSet<>();
        Set<String> liveFiles = new HashSet<>();
        long liveBytes = 0;
        for (Map.Entry<Long, String> metadata : metadataPresent.entrySet()) {
            liveBytes += present.get(metadata.getValue()).sizeBytes();
            liveFiles.add(metadata.getValue());
            for (Segment segment : referencesById.get(metadata.getKey()).segments()) {
                if (live.add(segment)) {
                    liveBytes += segment.length();
                    liveFiles.add(segment.file());
                }
            }
        }
        Map<String, Long> referencedEnd = new HashMap<>();
        for (Segment segment : live) {
            referencedEnd.merge(segment.file(), segment.offset() + segment.length(), Math::max);
        }
        long tail = 0;
        for (Map.Entry<String, Long> end : referencedEnd.entrySet()) {
            Present file = present.get(end.getKey());
            if (file != null) {
                tail += Math.max(0, file.sizeBytes() - end.getValue());
            }
        }
        long disk = 0;
        long diskAll = 0;
        int diskFiles = 0;
        for (Map.Entry<String, Present> file : present.entrySet()) {
            Present seen = file.getValue();
            diskAll += seen.sizeBytes();
            Long id = CheckpointFileCensus.checkpointOf(file.getKey());
            boolean next = id != null ? id > latest : seen.firstModifiedMillis() > completedAt;
            if (!next) {
                disk += sizeAtCompletion(seen, completedAt, referencedEnd.get(file.getKey()));
                diskFiles++;
            }
        }
        Set<String> missing = new HashSet<>();
        boolean firstOfLatest = samples.isEmpty() || samples.get(samples.size() - 1).latestId() != latest;
        for (Segment segment : firstOfLatest ? referencesById.get(latest).segments() : Set.<Segment>of()) {
            if (!present.containsKey(segment.file())) {
                missing.add(segment.file());
                missingExample.putIfAbsent(latest, segment.file());
            }
        }
        samples.add(new Sample(latest, List.copyOf(metadataPresent.keySet()), disk, diskAll, diskFiles, liveBytes,
                liveFiles.size(), missing.size(), tail));
    }

    /**
     * A file's bytes when the latest checkpoint completed ({@code completedAtMillis}, its {@code
     * _metadata}'s modification time): its size now, unless it was modified after that (a merged
     * file the next checkpoint appends to, merging across checkpoints): then its size at the scan
     * before (which ran before the {@code _metadata} was there), or the end of the last segment a
     * retained checkpoint refers to in it if that is further.
     */
    static long sizeAtCompletion(Present file, long completedAtMillis, Long referencedEnd) {
        if (file.modifiedMillis() <= completedAtMillis || file.previousSizeBytes() < 0) {
            return file.sizeBytes();
        }
        long before = Math.max(file.previousSizeBytes(), referencedEnd == null ? 0 : referencedEnd);
        return Math.min(file.sizeBytes(), before);
    }

    /**
     * Whether checkpoint {@code id} was taken while every task ran: its {@code _metadata} holds as
     * many subtask states as the run's fullest checkpoint (unknown, e.g. never read: yes).
     */
    boolean allTasksRunning(long id) {
        References references = referencesById.get(id);
        if (references == null) {
            return true;
        }
        int most = 0;
        for (References other : referencesById.values()) {
            most = Math.max(most, other.subtaskStates());
        }
        return references.subtaskStates() >= most;
    }

    /** Space per checkpoint of {@code checkpoints} (those taken while every task ran). */
    List<SpaceAtCheckpoint> perCheckpoint(Set<Long> checkpoints) {
        Map<Long, List<Sample>> byLatest = new TreeMap<>();
        for (Sample sample : samples) {
            if (checkpoints.contains(sample.latestId())) {
                byLatest.computeIfAbsent(sample.latestId(), id -> new ArrayList<>()).add(sample);
            }
        }
        List<SpaceAtCheckpoint> space = new ArrayList<>();
        byLatest.forEach((id, list) -> {
            Sample first = list.get(0);
            double highest = 0;
            double highestAll = 0;
            for (Sample sample : list) {
                if (sample.liveBytes() > 0) {
                    highest = Math.max(highest, (double) sample.diskBytes() / sample.liveBytes());
                    highestAll = Math.max(highestAll, (double) sample.diskBytesAll() / sample.liveBytes());
                }
            }
            space.add(new SpaceAtCheckpoint(id, first.diskBytes(), first.diskBytesAll(), first.liveBytes(),
                    first.diskFiles(), first.liveFiles(), first.retained(), highest, highestAll, list.size(),
                    first.missingFiles(), first.tailBytes()));
        });
        return space;
    }

    /** Medians and maxima over {@link #perCheckpoint}. */
    SpaceSummary summary(Set<Long> checkpoints) {
        List<SpaceAtCheckpoint> space = perCheckpoint(checkpoints);
        List<Double> ratios = new ArrayList<>();
        List<Long> disk = new ArrayList<>();
        List<Long> live = new ArrayList<>();
        double maxHighest = 0;
        double maxHighestAll = 0;
        int missing = 0;
        for (SpaceAtCheckpoint s : space) {
            missing += s.missingFiles() > 0 ? 1 : 0;
            ratios.add(s.amplificationAtCompletion());
            disk.add(s.diskBytesAtCompletion());
            live.add(s.liveBytesAtCompletion());
            maxHighest = Math.max(maxHighest, s.highestAmplification());
            maxHighestAll = Math.max(maxHighestAll, s.highestAmplificationAll());
        }
        if (ratios.isEmpty()) {
            return new SpaceSummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, 0, 0, unreadable.size(), 0);
        }
        Collections.sort(ratios);
        return new SpaceSummary(space.size(), ratios.get(ratios.size() / 2), ratios.get(ratios.size() - 1), maxHighest,
                maxHighestAll, CheckpointFileCensus.median(disk), Collections.max(disk),
                CheckpointFileCensus.median(live), unreadable.size(), missing);
    }

    /** By checkpoint, one file it refers to that was missing while it was the latest. */
    Map<Long, String> missingExamples() {
        return Map.copyOf(missingExample);
    }

    /** The {@code _metadata} files the reader could not read, with the last error. */
    Map<String, String> unreadable() {
        return Map.copyOf(unreadable);
    }
}
