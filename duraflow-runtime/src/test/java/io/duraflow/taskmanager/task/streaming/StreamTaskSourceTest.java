package io.duraflow.taskmanager.task.streaming;

import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.INTERVAL;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.completed;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.deliver;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.deliverSplit;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.noMoreSplits;
import static io.duraflow.taskmanager.task.streaming.StreamTaskCluster.trigger;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.AddSplits;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.taskmanager.task.Task;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source's reader as a streaming task sees it: a rate-limited reader is waited on through its
 * availability and its bounded input ends only after the final checkpoint; a reader that cannot
 * snapshot declines the checkpoint, soft or hard, with its message, and writes nothing. One source
 * task collecting its output, the test acting as the JobManager (see {@link StreamTaskCluster}).
 */
@Timeout(120)
class StreamTaskSourceTest {
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

    @Test
    void aRateLimitedSourceWaitsOnItsReadersAvailabilityAndItsBoundedInputEndsAfterTheFinalCheckpoint()
            throws Exception {
        long records = 3_000;
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("generated");
            builder.fromSource("generate", io.duraflow.api.connectors.DataGeneratorSource.of("longs", Types.LONG,
                    i -> i).withCount(records).withRate(30_000)).uid("generate").collect("longs");
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        AttemptId attempt = sourceAttempt(0, 0);
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(attempt).putConfig(INTERVAL, "1h").putConfig("execution.checkpointing.dir", dir.resolve("checkpoints").toString())
                .build(), job.get(), cluster, StreamTask::new);
        byte[] split = io.duraflow.api.connectors.StrideSplit.SERIALIZER.toBytes(
                new io.duraflow.api.connectors.StrideSplit(0, 0, 1, records));
        task.deliver(OperatorEvent.newBuilder().setAddSplits(AddSplits.newBuilder()
                .addSplits(ByteString.copyFrom(split))).build());
        task.deliver(noMoreSplits());
        cluster.start(task);
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.inputEnds.contains(attempt));
        assertThat(cluster.finalStates()).as("waits for a checkpoint after its end").isEmpty();
        trigger(Map.of(attempt, task), attempt, 1);
        cluster.awaitAcks(1, 1);
        task.notifyCheckpoint(completed(attempt, 1));
        cluster.joinAll();

        TaskStateUpdate finished = cluster.reports.get(cluster.reports.size() - 1);
        assertThat(finished.getState()).isEqualTo(TaskState.FINISHED);
        List<Long> collected = new ArrayList<>();
        DataReader in = new DataReader(finished.getCollected(0).getData().toByteArray());
        while (in.hasRemaining()) {
            collected.add(Types.LONG.read(new DataReader(in.readBytes(in.readVarInt()))));
        }
        assertThat(collected).hasSize((int) records).doesNotHaveDuplicates();
        assertThat(collected.stream().mapToLong(Long::longValue).max()).hasValue(records - 1);
    }

    /**
     * Generated longs whose readers say "not now" (soft) to checkpoint 1 and "this is wrong"
     * (hard) to checkpoint 2, and take every later one: seed 002's source that declines.
     */
    static final class DecliningSource implements io.duraflow.api.source.Source<Long,
            io.duraflow.api.connectors.StrideSplit> {
        private final io.duraflow.api.connectors.DataGeneratorSource<Long> generator;

        DecliningSource(long records) {
            this.generator = io.duraflow.api.connectors.DataGeneratorSource.of("longs", Types.LONG, i -> i)
                    .withCount(records).withRate(10_000);
        }

        @Override
        public io.duraflow.api.source.SplitEnumerator<io.duraflow.api.connectors.StrideSplit> createEnumerator(
                io.duraflow.api.source.SplitEnumeratorContext<io.duraflow.api.connectors.StrideSplit> context) {
            return generator.createEnumerator(context);
        }

        @Override
        public io.duraflow.api.source.SplitEnumerator<io.duraflow.api.connectors.StrideSplit> restoreEnumerator(
                io.duraflow.api.source.SplitEnumeratorContext<io.duraflow.api.connectors.StrideSplit> context,
                byte[] state) {
            return generator.restoreEnumerator(context, state);
        }

        @Override
        public io.duraflow.api.source.SourceReader<Long, io.duraflow.api.connectors.StrideSplit> createReader(
                io.duraflow.api.source.SourceReaderContext context) {
            io.duraflow.api.source.SourceReader<Long, io.duraflow.api.connectors.StrideSplit> reader =
                    generator.createReader(context);
            return new io.duraflow.api.source.SourceReader<>() {
                @Override
                public void start() {
                    reader.start();
                }

                @Override
                public io.duraflow.api.source.InputStatus pollNext(io.duraflow.api.source.ReaderOutput<Long> output)
                        throws Exception {
                    return reader.pollNext(output);
                }

                @Override
                public void addSplits(List<io.duraflow.api.connectors.StrideSplit> splits) {
                    reader.addSplits(splits);
                }

                @Override
                public void notifyNoMoreSplits() {
                    reader.notifyNoMoreSplits();
                }

                @Override
                public List<io.duraflow.api.connectors.StrideSplit> snapshotState(long checkpointId) throws Exception {
                    return reader.snapshotState(checkpointId);
                }

                @Override
                public java.util.concurrent.CompletionStage<Void> isAvailable() {
                    return reader.isAvailable();
                }

                @Override
                public io.duraflow.api.checkpoint.SnapshotAvailability isSnapshotAvailable(long checkpointId) {
                    if (checkpointId == 1) {
                        return io.duraflow.api.checkpoint.SnapshotAvailability.softFailure("in the middle of a chunk");
                    }
                    if (checkpointId == 2) {
                        return io.duraflow.api.checkpoint.SnapshotAvailability.hardFailure("position lost");
                    }
                    return io.duraflow.api.checkpoint.SnapshotAvailability.available();
                }
            };
        }

        @Override
        public io.duraflow.api.source.SplitSerializer<io.duraflow.api.connectors.StrideSplit> splitSerializer() {
            return generator.splitSerializer();
        }

        @Override
        public TypeSerializer<Long> producedType() {
            return Types.LONG;
        }

        @Override
        public String description() {
            return "declining(" + generator.description() + ")";
        }
    }

    @Test
    void aSourceThatCannotSnapshotDeclinesSoftOrHardWithItsMessageAndWritesNothing() throws Exception {
        long records = 1_000_000;
        java.util.function.Supplier<JobGraph> job = () -> {
            JobBuilder builder = new JobBuilder("declining");
            builder.fromSource("generate", new DecliningSource(records)).uid("generate").collect("longs");
            return JobGraph.compile(builder.plan(), 1, RuntimeMode.STREAMING);
        };
        graph = job.get();
        sources = graph.vertices().get(0);
        AttemptId attempt = sourceAttempt(0, 0);
        java.nio.file.Path checkpoints = dir.resolve("checkpoints");
        Task task = new Task(TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(attempt).putConfig(INTERVAL, "1h").putConfig("execution.checkpointing.dir", checkpoints.toString())
                .build(), job.get(), cluster, StreamTask::new);
        task.deliver(OperatorEvent.newBuilder().setAddSplits(AddSplits.newBuilder().addSplits(ByteString.copyFrom(
                io.duraflow.api.connectors.StrideSplit.SERIALIZER.toBytes(
                        new io.duraflow.api.connectors.StrideSplit(0, 0, 1, records))))).build());
        cluster.start(task);
        Map<AttemptId, Task> tasks = Map.of(attempt, task);

        trigger(tasks, attempt, 1);
        trigger(tasks, attempt, 2);
        trigger(tasks, attempt, 3);
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.declines.size() == 2 && !cluster.acks.isEmpty());

        assertThat(cluster.declines).extracting(d -> d.getCheckpointId() + " " + d.getFailure().getReason() + ": "
                + d.getFailure().getMessage()).containsExactly("1 SNAPSHOT_UNAVAILABLE_SOFT: in the middle of a chunk",
                        "2 SNAPSHOT_UNAVAILABLE_HARD: position lost");
        assertThat(cluster.acks).singleElement().satisfies(ack -> assertThat(ack.getCheckpointId()).isEqualTo(3));
        // A small state is acknowledged inline: maybe nothing was written at all, and nothing for 1 or 2.
        if (java.nio.file.Files.exists(checkpoints)) {
            try (var files = java.nio.file.Files.walk(checkpoints)) {
                assertThat(files.map(checkpoints::relativize).map(Object::toString))
                        .noneMatch(path -> path.contains("chk-1") || path.contains("chk-2"));
            }
        }
        task.cancel();
        cluster.joinAll();
    }

    private AttemptId sourceAttempt(int subtask, int attempt) {
        return StreamTaskCluster.attempt(sources, subtask, attempt);
    }
}
