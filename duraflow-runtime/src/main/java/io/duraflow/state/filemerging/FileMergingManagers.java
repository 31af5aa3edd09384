package io.duraflow.state.filemerging;

import io.duraflow.fs.FileSystem;
import io.duraflow.state.CheckpointDirectories;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Executor;

/**
 * A TaskManager's {@link FileMergingSnapshotManager}s: one per run of a job, shared by the run's
 * tasks here through {@linkplain Lease leases}. The first task of a run creates the manager, the
 * last one to end closes it; a later run of the same job (a restore) gets a new one, so it never
 * appends to a file of the earlier run. Thread-safe.
 */
public final class FileMergingManagers {
    private final String taskManagerId;
    private final Executor deleter;
    private final Map<String, Entry> managers = new HashMap<>();
    /** Managers created per run key: a run whose manager closed and that starts a task here again gets a directory of its own. */
    private final Map<String, Integer> created = new HashMap<>();

    private static final class Entry {
        final String jobId;
        final FileMergingSnapshotManager manager;
        int leases;

        Entry(String jobId, FileMergingSnapshotManager manager) {
            this.jobId = jobId;
            this.manager = manager;
        }
    }

    /**
     * @param deleter runs file deletions one at a time, in order (a directory is deleted after the
     *     files in it)
     */
    public FileMergingManagers(String taskManagerId, Executor deleter) {
        this.taskManagerId = Objects.requireNonNull(taskManagerId, "taskManagerId");
        this.deleter = Objects.requireNonNull(deleter, "deleter");
    }

    /** What one task holds: the manager of its run, registered with its subtask, until {@link #close()}. */
    public final class Lease implements AutoCloseable {
        private final String key;
        private final FileMergingSnapshotManager manager;
        private final SubtaskKey subtask;
        private boolean closed;

        private Lease(String key, FileMergingSnapshotManager manager, SubtaskKey subtask) {
            this.key = key;
            this.manager = manager;
            this.subtask = subtask;
        }

        public FileMergingSnapshotManager manager() {
            return manager;
        }

        public SubtaskKey subtask() {
            return subtask;
        }

        /** The task ended; the last lease of a run closes its manager. Idempotent. */
        @Override
        public void close() {
            FileMergingSnapshotManager toClose = null;
            synchronized (FileMergingManagers.this) {
                if (closed) {
                    return;
                }
                closed = true;
                Entry entry = managers.get(key);
                if (entry != null && entry.manager == manager && --entry.leases == 0) {
                    managers.remove(key);
                    toClose = manager;
                }
            }
            if (toClose != null) {
                toClose.close();
            }
        }
    }

    /** A lease on the manager of run {@code runId} of job {@code jobId} for the task of {@code subtask}. */
    public synchronized Lease acquire(String jobId, String runId, SubtaskKey subtask, FileSystem fileSystem,
            CheckpointDirectories directories, FileMergingSettings settings) {
        String key = jobId + "/" + runId;
        Entry entry = managers.get(key);
        if (entry == null) {
            int instance = created.merge(key, 1, Integer::sum);
            entry = new Entry(jobId, new FileMergingSnapshotManager(jobId, taskManagerId,
                    instance == 1 ? runId : runId + "-" + instance, fileSystem, directories, settings, deleter));
            managers.put(key, entry);
        }
        entry.leases++;
        entry.manager.register(subtask);
        return new Lease(key, entry.manager, subtask);
    }

    /**
     * The files of every open manager here, summed per job (a job has one manager per run that
     * has a task here); for the metrics. Each manager is asked under its own lock, not under this one.
     */
    public Map<String, SpaceUsage> spaceUsageByJob() {
        List<Entry> open;
        synchronized (this) {
            open = new ArrayList<>(managers.values());
        }
        Map<String, SpaceUsage> byJob = new TreeMap<>();
        for (Entry entry : open) {
            SpaceUsage usage = entry.manager.spaceUsage();
            byJob.merge(entry.jobId, usage, SpaceUsage::plus);
        }
        return byJob;
    }

    /** Runs whose manager is open here. */
    public synchronized int openManagers() {
        return managers.size();
    }
}
