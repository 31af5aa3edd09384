package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.mailbox.Mailbox;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One checkpoint between its trigger and its end, owned by the {@link CheckpointCoordinator} on
 * the main thread. States and the only transitions allowed:
 *
 * <pre>
 *   TRIGGERING ----coordinators snapshotted, sources triggered----> AWAITING_ACKS
 *   AWAITING_ACKS --every task acknowledged------------------------> FINALIZING
 *   FINALIZING ----metadata durable, in the completed store--------> COMPLETED
 *   TRIGGERING | AWAITING_ACKS | FINALIZING --failure--------------> ABORTED
 * </pre>
 *
 * FINALIZING is aborted only when finalization itself failed: once the metadata write has started,
 * the checkpoint may already be in the completed store, so expiry, declines and failovers leave it
 * alone.
 */
final class PendingCheckpoint {
    private static final Logger LOG = LoggerFactory.getLogger(PendingCheckpoint.class);

    enum State {
        TRIGGERING,
        AWAITING_ACKS,
        FINALIZING,
        COMPLETED,
        ABORTED;

        private Set<State> next() {
            return switch (this) {
                case TRIGGERING -> EnumSet.of(AWAITING_ACKS, ABORTED);
                case AWAITING_ACKS -> EnumSet.of(FINALIZING, ABORTED);
                case FINALIZING -> EnumSet.of(COMPLETED, ABORTED);
                case COMPLETED, ABORTED -> EnumSet.noneOf(State.class);
            };
        }
    }

    private final String jobId;
    final long checkpointId;
    /** The coordinator's count of started checkpoints when this one started ({@link CheckpointCoordinator#startMark}). */
    final long startSequence;
    final long timestampMs;
    final CheckpointKind kind;
    final CheckpointPlan plan;
    /** {@code chk-<n>/} or the savepoint's directory. */
    final FsPath directory;
    final CompletableFuture<CompletedCheckpoint> result = new CompletableFuture<>();
    private final Set<CheckpointTask> notYetAcknowledged;
    private final Map<CheckpointTask, TaskStateSnapshot> acknowledged = new HashMap<>();
    private final Set<FsPath> files = new HashSet<>();
    private final Set<FsPath> uploaded = new HashSet<>();
    private final Set<FsPath> reused = new HashSet<>();
    private Map<String, byte[]> coordinatorStates = Map.of();
    private long stateSize;
    private long checkpointedSize;
    private State state = State.TRIGGERING;
    Mailbox.Cancellable timeout;

    PendingCheckpoint(String jobId, long checkpointId, long startSequence, long timestampMs, CheckpointKind kind,
            CheckpointPlan plan, FsPath directory) {
        this.jobId = jobId;
        this.checkpointId = checkpointId;
        this.startSequence = startSequence;
        this.timestampMs = timestampMs;
        this.kind = kind;
        this.plan = plan;
        this.directory = directory;
        this.notYetAcknowledged = new HashSet<>(plan.toAcknowledge());
    }

    State state() {
        return state;
    }

    void transition(State to, String why) {
        if (!state.next().contains(to)) {
            throw new IllegalStateException("checkpoint " + checkpointId + " of job " + jobId + " cannot go from "
                    + state + " to " + to + " (" + why + ")");
        }
        LOG.info("Checkpoint {} of job {}: {} -> {} ({})", checkpointId, jobId, state, to, why);
        state = to;
    }

    boolean isEnded() {
        return state == State.COMPLETED || state == State.ABORTED;
    }

    void coordinatorStates(Map<String, byte[]> states) {
        Map<String, byte[]> copy = new HashMap<>();
        states.forEach((uid, bytes) -> copy.put(uid, bytes.clone()));
        coordinatorStates = copy;
    }

    /** What an acknowledgement of {@code task} means now. */
    enum AckResult {
        ACCEPTED,
        DUPLICATE,
        UNKNOWN_TASK
    }

    AckResult acknowledge(CheckpointTask task, TaskStateSnapshot snapshot, SnapshotFiles snapshotFiles) {
        if (acknowledged.containsKey(task)) {
            return AckResult.DUPLICATE;
        }
        if (!notYetAcknowledged.remove(task)) {
            return AckResult.UNKNOWN_TASK;
        }
        acknowledged.put(task, snapshot);
        files.addAll(snapshotFiles.all());
        uploaded.addAll(snapshotFiles.uploaded());
        reused.addAll(snapshotFiles.reused());
        stateSize += snapshot.stateSize();
        checkpointedSize += snapshotFiles.checkpointedSize();
        return AckResult.ACCEPTED;
    }

    /** Whether the checkpoint still waits for {@code task}'s acknowledgement. */
    boolean awaits(CheckpointTask task) {
        return notYetAcknowledged.contains(task);
    }

    boolean allAcknowledged() {
        return notYetAcknowledged.isEmpty();
    }

    int pendingAcknowledgements() {
        return notYetAcknowledged.size();
    }

    Set<FsPath> files() {
        return Set.copyOf(files);
    }

    /** Every byte the checkpoint refers to, the coordinators' states (in its metadata) included. */
    long stateSize() {
        return stateSize + coordinatorStateSize();
    }

    /** The bytes this checkpoint wrote: {@link #stateSize()} without the shared files it reuses. */
    long checkpointedSize() {
        return checkpointedSize + coordinatorStateSize();
    }

    /** Distinct files the acknowledged snapshots wrote. */
    int uploadedFiles() {
        return uploaded.size();
    }

    /** Distinct shared files of earlier checkpoints the acknowledged snapshots refer to (and did not write). */
    int reusedFiles() {
        int count = 0;
        for (FsPath file : reused) {
            if (!uploaded.contains(file)) {
                count++;
            }
        }
        return count;
    }

    private long coordinatorStateSize() {
        return coordinatorStates.values().stream().mapToLong(bytes -> bytes.length).sum();
    }

    /**
     * The completed checkpoint these acknowledgements make.
     *
     * @throws IllegalArgumentException if a task acknowledged state of an operator the plan does not know
     */
    CompletedCheckpoint toCompleted(int maxParallelism, long completedMs, FsPath metadataFile) {
        Map<String, Map<Integer, OperatorSubtaskState>> subtasks = new TreeMap<>();
        acknowledged.forEach((task, snapshot) -> snapshot.operators().forEach((uid, operatorState) -> {
            if (!plan.operatorParallelism().containsKey(uid)) {
                throw new IllegalArgumentException(task + " acknowledged state of operator uid '" + uid
                        + "', which the job does not have");
            }
            if (!operatorState.isEmpty()
                    && subtasks.computeIfAbsent(uid, u -> new TreeMap<>()).put(task.subtask(), operatorState) != null) {
                throw new IllegalArgumentException("two tasks acknowledged state of subtask " + task.subtask()
                        + " of operator uid '" + uid + "'");
            }
        }));
        for (String uid : coordinatorStates.keySet()) {
            if (!plan.operatorParallelism().containsKey(uid)) {
                throw new IllegalArgumentException("a coordinator snapshotted state of operator uid '" + uid
                        + "', which the job does not have");
            }
        }
        Map<String, OperatorCheckpointState> operators = new HashMap<>();
        plan.operatorParallelism().forEach((uid, parallelism) -> {
            Map<Integer, OperatorSubtaskState> states = subtasks.getOrDefault(uid, Map.of());
            byte[] coordinator = coordinatorStates.get(uid);
            // Stateless operators are recorded too: a restore tells "no state" from "an operator this checkpoint does not know".
            operators.put(uid, new OperatorCheckpointState(uid, parallelism, coordinator, states));
        });
        Set<FsPath> fileMergingDirectories = new HashSet<>();
        acknowledged.values().forEach(snapshot -> fileMergingDirectories.addAll(snapshot.fileMergingDirectories()));
        return new CompletedCheckpoint(jobId, checkpointId, timestampMs, completedMs, maxParallelism, kind, operators,
                metadataFile, fileMergingDirectories);
    }
}
