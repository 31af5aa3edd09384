package io.duraflow.checkpoint;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A checkpoint coordinator over a real local checkpoint directory and completed-checkpoint store,
 * with a manual main thread and clock, an I/O executor run by hand, and fake tasks: two sources
 * (vertex 0, operator "source") feeding two keyed tasks (vertex 1, operator "sum"), attempt 0.
 */
final class CoordinatorHarness {
    static final String JOB = "job-1";
    static final int MAX_PARALLELISM = 8;
    static final CheckpointTask SOURCE_0 = new CheckpointTask(0, 0, 0);
    static final CheckpointTask SOURCE_1 = new CheckpointTask(0, 1, 0);
    static final CheckpointTask SUM_0 = new CheckpointTask(1, 0, 0);
    static final CheckpointTask SUM_1 = new CheckpointTask(1, 1, 0);
    static final List<CheckpointTask> ALL = List.of(SOURCE_0, SOURCE_1, SUM_0, SUM_1);

    final ManualMailbox main = new ManualMailbox();
    final ManualIo io = new ManualIo();
    final FileSystem fs = LocalFileSystem.INSTANCE;
    final Path root;
    final CheckpointDirectories directories;
    final FsPath pointerDirectory;
    final AtomicBoolean leading = new AtomicBoolean(true);
    final CheckpointIdCounter counter;
    final CompletedCheckpointStore store;
    final FakeTasks tasks = new FakeTasks();
    final FakeCoordinators coordinators = new FakeCoordinators();
    final List<String> jobFailures = new ArrayList<>();
    /** Every call the coordinator made on tasks and coordinators, in order. */
    final List<String> calls = new ArrayList<>();
    final CheckpointCoordinator coordinator;

    CoordinatorHarness(Path root, CheckpointCoordinatorConfig config) {
        this(root, config, new StandaloneCheckpointIdCounter());
    }

    CoordinatorHarness(Path root, CheckpointCoordinatorConfig config, CheckpointIdCounter counter) {
        this(root, config, counter, 0);
    }

    /** A coordinator made at {@code startMs} on the manual clock (a new leader that starts later). */
    CoordinatorHarness(Path root, CheckpointCoordinatorConfig config, long startMs) {
        this(root, config, new StandaloneCheckpointIdCounter(), startMs);
    }

    private CoordinatorHarness(Path root, CheckpointCoordinatorConfig config, CheckpointIdCounter counter,
            long startMs) {
        main.advance(startMs);
        this.root = root;
        this.counter = counter;
        this.directories = CheckpointDirectories.of(FsPath.of(root.resolve("checkpoints")), JOB);
        this.pointerDirectory = FileSystemCompletedCheckpointStore.pointerDirectory(
                FsPath.of(root.resolve("ha/jobs/" + JOB)));
        this.store = new FileSystemCompletedCheckpointStore(fs, fs, pointerDirectory, JOB, config.numRetained(),
                leading::get);
        this.coordinator = new CheckpointCoordinator(JOB, config, directories, new CheckpointCoordinator.Services(fs,
                main, io, main::now, counter, store, tasks, coordinators, jobFailures::add));
    }

    /** A harness whose coordinator takes periodic checkpoints already. */
    static CoordinatorHarness started(Path tmp, CheckpointCoordinatorConfig config) {
        CoordinatorHarness h = new CoordinatorHarness(tmp, config);
        h.coordinator.startPeriodic();
        return h;
    }

    static CheckpointCoordinatorConfig config(long intervalMs, long timeoutMs, long minPauseMs, int maxConcurrent,
            int tolerable, int retained) {
        return new CheckpointCoordinatorConfig(intervalMs, timeoutMs, minPauseMs, maxConcurrent, tolerable, retained,
                MAX_PARALLELISM);
    }

    /** Runs I/O and main-thread actions due now until neither has anything left. */
    void settle() {
        while (io.runAll() + main.runDue() > 0) {
            // keep going: each side may have queued work for the other
        }
    }

    void advance(long ms) {
        settle();
        main.advance(ms);
        settle();
    }

    /** Writes the task's state file for a checkpoint (10 bytes) and returns its snapshot. */
    TaskStateSnapshot writeState(CheckpointTask task, long checkpointId) {
        FsPath file = directories.checkpoint(checkpointId).resolve("state-" + task.vertex() + "-" + task.subtask()
                + "-" + task.attempt());
        try {
            fs.writeFile(file, new byte[10], WriteMode.OVERWRITE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        FileSegmentHandle segment = new FileSegmentHandle(file, 0, 10);
        if (task.vertex() == 0) {
            OperatorStateHandle splits = new OperatorStateHandle(Map.of("splits",
                    new OperatorStateHandle.StateList(OperatorStateHandle.Distribution.SPLIT, new long[] {0})), segment);
            return new TaskStateSnapshot(Map.of("source", new OperatorSubtaskState(List.of(), List.of(splits))));
        }
        KeyGroupRange range = KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, task.subtask());
        long[] offsets = new long[range.size()];
        Arrays.fill(offsets, 0);
        return new TaskStateSnapshot(Map.of("sum", new OperatorSubtaskState(
                List.of(new KeyGroupsStateHandle(range, offsets, segment)), List.of())));
    }

    FsPath stateFile(CheckpointTask task, long checkpointId) {
        return directories.checkpoint(checkpointId).resolve("state-" + task.vertex() + "-" + task.subtask() + "-"
                + task.attempt());
    }

    void ack(CheckpointTask task, long checkpointId) {
        coordinator.acknowledge(task, checkpointId, writeState(task, checkpointId), CheckpointMetrics.NONE);
    }

    void ackAll(long checkpointId) {
        for (CheckpointTask task : ALL) {
            ack(task, checkpointId);
        }
        settle();
    }

    boolean exists(FsPath path) {
        try {
            return fs.exists(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    final class FakeTasks implements CheckpointTasks {
        boolean allRunning = true;
        final List<CheckpointTrigger> triggers = new ArrayList<>();
        final Map<Long, Set<CheckpointTask>> completed = new HashMap<>();
        /** The lowest retained id each completion notification carried. */
        final Map<Long, Long> lowestRetained = new HashMap<>();
        /** The completed-checkpoint pointers there were when the tasks were told of each completion. */
        final Map<Long, List<String>> pointersWhenNotified = new HashMap<>();
        final Map<Long, Set<CheckpointTask>> aborted = new HashMap<>();

        @Override
        public Optional<CheckpointPlan> planCheckpoint() {
            return allRunning ? Optional.of(new CheckpointPlan(List.of(SOURCE_0, SOURCE_1), Set.copyOf(ALL),
                    Map.of("source", 2, "sum", 2))) : Optional.empty();
        }

        @Override
        public void triggerCheckpoint(Collection<CheckpointTask> tasks, CheckpointTrigger trigger) {
            for (CheckpointTask task : tasks) {
                calls.add("trigger " + trigger.checkpointId() + " " + task);
            }
            if (!tasks.isEmpty()) {
                triggers.add(trigger);
            }
        }

        @Override
        public void notifyCheckpointComplete(Collection<CheckpointTask> tasks, long checkpointId,
                long lowestRetainedId) {
            completed.computeIfAbsent(checkpointId, id -> new LinkedHashSet<>()).addAll(tasks);
            lowestRetained.put(checkpointId, lowestRetainedId);
            try {
                pointersWhenNotified.put(checkpointId, fs.listIfExists(pointerDirectory).stream()
                        .map(status -> status.path().name()).sorted().toList());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void notifyCheckpointAborted(Collection<CheckpointTask> tasks, long checkpointId,
                CheckpointFailure failure) {
            aborted.computeIfAbsent(checkpointId, id -> new LinkedHashSet<>()).addAll(tasks);
        }
    }

    final class FakeCoordinators implements OperatorCoordinatorCheckpoints {
        /** When set, snapshots complete only when the test completes this future. */
        CompletableFuture<Map<String, byte[]>> next;
        final List<Long> completed = new ArrayList<>();

        @Override
        public CompletableFuture<Map<String, byte[]>> snapshotCoordinators(long checkpointId) {
            calls.add("snapshot coordinators " + checkpointId);
            if (next != null) {
                CompletableFuture<Map<String, byte[]>> future = next;
                next = null;
                return future;
            }
            return CompletableFuture.completedFuture(Map.of("source", new byte[] {(byte) checkpointId}));
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            completed.add(checkpointId);
        }
    }

    /** An I/O executor the test runs by hand, in order, like the coordinator's single I/O thread. */
    static final class ManualIo implements Executor {
        private final Queue<Runnable> queue = new ArrayDeque<>();

        @Override
        public synchronized void execute(Runnable command) {
            queue.add(command);
        }

        int runAll() {
            int ran = 0;
            for (Runnable next = poll(); next != null; next = poll()) {
                next.run();
                ran++;
            }
            return ran;
        }

        synchronized int queued() {
            return queue.size();
        }

        private synchronized Runnable poll() {
            return queue.poll();
        }
    }
}
