package io.duraflow.taskmanager.task.streaming;

import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.INTERVAL;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.completed;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.deliver;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.deliverSplit;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.noMoreSplits;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.trigger;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskRestore;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.taskmanager.task.Task;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A two-phase committing sink in a streaming task, over the checkpoint's life: its committables
 * commit only when their checkpoint completed, and once across a restore; an aborted checkpoint
 * is neither acknowledged nor leaves files; a trigger that arrives after a newer one is declined
 * as subsumed. One task (a source of longs chained to the sink), the test acting as the JobManager
 * (see {@link StreamTaskCluster}).
 */
@Timeout(120)
class StreamTaskTwoPhaseSinkTest {
    private static final long RECORDS = 20_000;

    @TempDir
    Path dir;

    /** The TaskManager of every task, and where the test records what tasks tell the JobManager. */
    private StreamTaskCluster cluster;
    private JobGraph graph;
    private JobVertex sources;

    @BeforeEach
    void start() {
        cluster = new StreamTaskCluster("tm-test", null, dir);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    /**
     * Records the test sink's commits: per checkpoint (its committable), the records it made visible.
     * A commit of the same checkpoint again (a restore re-applying it) must carry the same records.
     */
    private final Map<Long, List<Long>> committed = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger conflictingCommits = new java.util.concurrent.atomic.AtomicInteger();
    /** The job lineage each cleanup of the test sink's subtask got. */
    private final List<java.util.Set<String>> cleanups = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Prepares (checkpoint id, records written since the previous prepare); the committer records them. */
    private final class RecordingTwoPhaseSink implements io.duraflow.api.sink.TwoPhaseCommittingSink<Long, Tuple2<Long, List<Long>>> {
        @Override
        public io.duraflow.api.sink.CommittingSinkWriter<Long, Tuple2<Long, List<Long>>> createWriter(
                io.duraflow.api.sink.SinkContext context) {
            return new io.duraflow.api.sink.CommittingSinkWriter<>() {
                private List<Long> written = new ArrayList<>();

                @Override
                public void write(Long record) {
                    written.add(record);
                }

                @Override
                public List<Tuple2<Long, List<Long>>> prepareCommit(long checkpointId) {
                    List<Long> batch = written;
                    written = new ArrayList<>();
                    return List.of(Tuple2.of(checkpointId, batch));
                }

                @Override
                public void finish() {
                    throw new AssertionError("a streaming sink is never finished: its final checkpoint commits");
                }
            };
        }

        @Override
        public io.duraflow.api.sink.Committer<Tuple2<Long, List<Long>>> createCommitter(io.duraflow.api.sink.SinkContext context) {
            return committables -> {
                for (Tuple2<Long, List<Long>> committable : committables) {
                    List<Long> earlier = committed.putIfAbsent(committable.f0(), committable.f1());
                    if (earlier != null && !earlier.equals(committable.f1())) {
                        conflictingCommits.incrementAndGet();
                    }
                }
            };
        }

        @Override
        public TypeSerializer<Tuple2<Long, List<Long>>> committableSerializer() {
            return Types.tuple(Types.LONG, Types.list(Types.LONG));
        }

        @Override
        public void cleanUpLeftovers(io.duraflow.api.sink.SinkContext context,
                List<Tuple2<Long, List<Long>>> restoredCommittables, java.util.Set<String> restoredJobIds) {
            cleanups.add(restoredJobIds);
        }

        @Override
        public String description() {
            return "recording two-phase sink";
        }
    }

    @Test
    void aSinkCommitsWhenItsCheckpointCompletesAndARestoreReadsTheRestoredSplitAndCommitsEveryRecordOnce()
            throws Exception {
        RecordingTwoPhaseSink sink = new RecordingTwoPhaseSink();
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("two-phase");
            builder.fromSource("numbers", new SequenceSource(0, RECORDS, 1)).uid("numbers").sinkTo("sink", sink);
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        Map<String, String> config = Map.of(INTERVAL, "1h", "execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        AttemptId first = sourceAttempt(0, 0);
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1).setAttempt(first)
                .putAllConfig(config).build(), job.get(), cluster, StreamTask::new);
        Map<AttemptId, Task> tasks = Map.of(first, task);
        // Both mails are put on the task thread while it asks for its first split, so they run one
        // after the other: the split is in the reader, not yet read, when checkpoint 1 is taken.
        cluster.onSplitRequest = attempt -> {
            if (attempt.equals(first) && cluster.splitRequests.size() == 1) {
                deliverSplit(tasks, first, 0, RECORDS);
                trigger(tasks, first, 1);
            }
        };
        cluster.start(task);
        AcknowledgeCheckpointRequest checkpoint1 = cluster.awaitAcks(1, 1).get(first);
        assertThat(committed).as("nothing commits before its checkpoint completed").isEmpty();
        task.notifyCheckpoint(completed(first, 1));
        await().atMost(Duration.ofSeconds(30)).until(() -> committed.containsKey(1L));
        trigger(tasks, first, 2);
        cluster.awaitAcks(2, 1);
        // Checkpoint 2 never completes: the task fails, the next attempt restores checkpoint 1, the
        // latest completed one, whose state holds the whole split, not yet read.
        task.cancel();
        cluster.joinAll();
        assertThat(committed).doesNotContainKey(2L);
        assertThat(committed.get(1L)).isEmpty();

        // Restored under another job id, as from a savepoint: the sink learns whose leftovers it may remove.
        AttemptId second = sourceAttempt(0, 1).toBuilder().setJobId("restoring-job").build();
        Task restored = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(second).putAllConfig(config).setRestore(TaskRestore.newBuilder().setCheckpointId(1)
                        .setState(checkpoint1.getState())).build(), job.get(), cluster, StreamTask::new);
        cluster.start(restored);
        // The enumerator has no split left to give (it assigned it before checkpoint 1): the reader
        // reads the one restored from its state.
        cluster.awaitSplitRequests(second, 1);
        deliver(Map.of(second, restored), second, noMoreSplits());
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.inputEnds.contains(second));
        trigger(Map.of(second, restored), second, 3);
        cluster.awaitAcks(3, 1);
        restored.notifyCheckpoint(completed(second, 3));
        cluster.joinAll();
        assertThat(cluster.reports.get(cluster.reports.size() - 1).getState()).isEqualTo(TaskState.FINISHED);

        assertThat(conflictingCommits).hasValue(0);
        assertThat(cleanups).as("the restored job lineage at each start, then the lineage at the end")
                .containsExactly(java.util.Set.of(), java.util.Set.of("job"), java.util.Set.of("job", "restoring-job"));
        assertThat(committed).doesNotContainKey(2L).containsKey(3L);
        List<Long> all = new ArrayList<>();
        committed.values().forEach(all::addAll);
        assertThat(all).hasSize((int) RECORDS).doesNotHaveDuplicates();
        assertThat(all.stream().mapToLong(Long::longValue).sum()).isEqualTo(RECORDS * (RECORDS - 1) / 2);
    }

    @Test
    void anAbortedCheckpointIsNeitherAcknowledgedNorLeavesFilesAndTheNextOneIs() throws Exception {
        RecordingTwoPhaseSink sink = new RecordingTwoPhaseSink();
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("two-phase");
            builder.fromSource("numbers", new SequenceSource(0, RECORDS, 1)).uid("numbers").sinkTo("sink", sink);
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        Path checkpoints = dir.resolve("checkpoints");
        // Inline nothing: every piece of state is a file, so a leftover file would show.
        Map<String, String> config = Map.of(INTERVAL, "1h", "execution.checkpointing.dir", checkpoints.toString(),
                "state.storage.inline-threshold", "0 b");
        List<Runnable> asyncParts = new CopyOnWriteArrayList<>();
        cluster.snapshotExecutor = asyncParts::add;
        AttemptId attempt = sourceAttempt(0, 0);
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(attempt).putAllConfig(config).build(), job.get(), cluster, StreamTask::new);
        Map<AttemptId, Task> tasks = Map.of(attempt, task);
        cluster.start(task);
        cluster.awaitSplitRequests(attempt, 1);
        deliverSplit(tasks, attempt, 0, RECORDS);
        trigger(tasks, attempt, 1);
        task.notifyCheckpoint(CheckpointNotification.newBuilder().setAttempt(attempt)
                .setCheckpointId(1).setCompleted(false).build());
        trigger(tasks, attempt, 2);
        // Mails run in order: once checkpoint 2's part is queued, the abort of checkpoint 1 was handled.
        await().atMost(Duration.ofSeconds(30)).until(() -> asyncParts.size() == 2);
        asyncParts.forEach(Runnable::run);

        assertThat(cluster.acks).singleElement().satisfies(ack -> assertThat(ack.getCheckpointId()).isEqualTo(2));
        assertThat(cluster.declines).isEmpty();
        try (var files = java.nio.file.Files.walk(checkpoints)) {
            List<String> written = files.filter(java.nio.file.Files::isRegularFile)
                    .map(file -> checkpoints.relativize(file).toString()).toList();
            assertThat(written).isNotEmpty().allSatisfy(file -> assertThat(file).doesNotContain("chk-1"));
        }
        task.cancel();
        cluster.joinAll();
    }

    /**
     * Triggers reach a task over separate RPCs, so a periodic checkpoint and the final one
     * triggered a millisecond apart can arrive newest first (seen in StreamingCheckpointsIT). The
     * older one is declined as subsumed, which fails nothing; before, its snapshot reached the
     * sink after the newer one's, the sink refused it and the decline failed the job over.
     */
    @Test
    void aTriggerThatArrivesAfterANewerOneIsDeclinedAsSubsumedAndTheNewerOneIsAcknowledged() throws Exception {
        RecordingTwoPhaseSink sink = new RecordingTwoPhaseSink();
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("two-phase");
            builder.fromSource("numbers", new SequenceSource(0, RECORDS, 1)).uid("numbers").sinkTo("sink", sink);
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        Map<String, String> config = Map.of(INTERVAL, "1h", "execution.checkpointing.dir", dir.resolve("checkpoints").toString());
        List<Runnable> asyncParts = new CopyOnWriteArrayList<>();
        cluster.snapshotExecutor = asyncParts::add;
        AttemptId attempt = sourceAttempt(0, 0);
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(attempt).putAllConfig(config).build(), job.get(), cluster, StreamTask::new);
        Map<AttemptId, Task> tasks = Map.of(attempt, task);
        cluster.start(task);
        cluster.awaitSplitRequests(attempt, 1);
        deliverSplit(tasks, attempt, 0, RECORDS);
        trigger(tasks, attempt, 6);
        trigger(tasks, attempt, 5);
        await().atMost(Duration.ofSeconds(30)).until(() -> asyncParts.size() == 1 && cluster.declines.size() == 1);
        asyncParts.forEach(Runnable::run);
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.acks.size() == 1);

        assertThat(cluster.acks).singleElement().satisfies(ack -> assertThat(ack.getCheckpointId()).isEqualTo(6));
        assertThat(cluster.declines).singleElement().satisfies(decline -> {
            assertThat(decline.getCheckpointId()).isEqualTo(5);
            assertThat(decline.getFailure().getReason()).isEqualTo("SUBSUMED");
            assertThat(decline.getFailure().getMessage()).contains("checkpoint 6 already");
        });
        task.cancel();
        cluster.joinAll();
    }

    private AttemptId sourceAttempt(int subtask, int attempt) {
        return StreamTaskCluster.attempt(sources, subtask, attempt);
    }
}
