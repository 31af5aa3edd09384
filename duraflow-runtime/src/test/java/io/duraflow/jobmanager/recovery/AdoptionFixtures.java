package io.duraflow.jobmanager.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.events.proto.CoordinatorState;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.ExecutionsReset;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.jobmanager.events.proto.SplitsAssigned;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.plan.JobGraph;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Job graphs, event logs, reported tasks and plans for the adoption planner's tests. */
final class AdoptionFixtures {
    private AdoptionFixtures() {}

    static final int SOURCE_NODE = 0;

    /** v0: source "numbers" (2 tasks, node 0) -> edge 0 -> v1: sum by key (decided at runtime) -> collect. */
    static JobGraph batchJob() {
        JobBuilder job = new JobBuilder("word-count");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    /** v0: source (2) -> v1: keyed reduce (2) -> collect, streaming: one region. */
    static JobGraph streamingJob() {
        JobBuilder job = new JobBuilder("streaming");
        job.fromSource("numbers", new SequenceSource(0, 100, 2)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(2)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    /** Two pipelines that share nothing, streaming: regions {v0, v1} and {v2, v3}, each source (2) -> reduce (2). */
    static JobGraph twoRegions() {
        JobBuilder job = new JobBuilder("two-pipelines");
        job.fromSource("left", new SequenceSource(0, 100, 2)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(2)
                .collect("left-sums");
        job.fromSource("right", new SequenceSource(0, 100, 2)).parallelism(2)
                .keyBy(n -> n % 7, Types.LONG).reduce(Long::sum).parallelism(2)
                .collect("right-sums");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    static ExecutionKey key(int vertex, int subtask) {
        return new ExecutionKey(vertex, subtask);
    }

    /** The batch job's plan, with {@code lost} TaskManagers gone. */
    static AdoptionPlan batchPlan(List<JobEvent> events, Map<String, String> available,
            Collection<ReportedTask> reports, String... lost) {
        return AdoptionPlanner.planBatch(batchJob(), events, available, reports, Set.of(lost));
    }

    /** The plan's decision for the subtask, which must be a restart. */
    static TaskDecision.Restart restart(AdoptionPlan plan, int vertex, int subtask) {
        assertThat(plan.decision(vertex, subtask)).isInstanceOf(TaskDecision.Restart.class);
        return (TaskDecision.Restart) plan.decision(vertex, subtask);
    }

    // ------------------------------------------------------------------ events

    static String pid(int vertex, int subtask, int attempt, int edge) {
        return "job-v" + vertex + "-s" + subtask + "-a" + attempt + "-e" + edge;
    }

    static JobEvent init(int vertex, int parallelism, int... bounds) {
        VertexInitialized.Builder event = VertexInitialized.newBuilder().setVertex(vertex).setParallelism(parallelism);
        Arrays.stream(bounds).forEach(event::addRangeBounds);
        return JobEvent.newBuilder().setTimestampMs(1).setVertexInitialized(event).build();
    }

    static JobEvent finished(int vertex, int subtask, int attempt, String tm, int... edges) {
        ExecutionFinished.Builder event = ExecutionFinished.newBuilder().setVertex(vertex).setSubtask(subtask)
                .setAttempt(attempt).setTmId(tm).setTmAddress(tm + ".local:6122");
        for (int edge : edges) {
            event.addPartitions(ProducedPartition.newBuilder().setEdgeId(edge)
                    .setPartitionId(pid(vertex, subtask, attempt, edge)).addSubpartitionBytes(40).setRecords(7));
        }
        return JobEvent.newBuilder().setTimestampMs(2).setExecutionFinished(event).build();
    }

    static JobEvent reset(int vertex, int subtask, int newAttempt) {
        return JobEvent.newBuilder().setTimestampMs(3).setExecutionsReset(ExecutionsReset.newBuilder()
                .addExecutions(ExecutionRef.newBuilder().setVertex(vertex).setSubtask(subtask).setNewAttempt(newAttempt))
                .setReason("test")).build();
    }

    static JobEvent assigned(int subtask, int attempt, String... splits) {
        SplitsAssigned.Builder event = SplitsAssigned.newBuilder().setNodeId(SOURCE_NODE).setSubtask(subtask)
                .setAttempt(attempt);
        for (String split : splits) {
            event.addSplits(ByteString.copyFromUtf8(split));
        }
        return JobEvent.newBuilder().setTimestampMs(4).setSplitsAssigned(event).build();
    }

    static JobEvent state(String state) {
        return JobEvent.newBuilder().setTimestampMs(6).setCoordinatorState(CoordinatorState.newBuilder()
                .setNodeId(SOURCE_NODE).setCheckpointId(-1).setState(ByteString.copyFromUtf8(state))).build();
    }

    static JobEvent noSnapshot() {
        return JobEvent.newBuilder().setTimestampMs(6).setCoordinatorState(CoordinatorState.newBuilder()
                .setNodeId(SOURCE_NODE).setCheckpointId(-1).setSnapshotUnsupported(true)).build();
    }

    /**
     * Both source subtasks got a split (with the enumerator's state after each) and finished on
     * tm-a and tm-b; v1 was laid out as 2 subtasks over key groups [0, 64) and [64, 128).
     */
    static List<JobEvent> sourcesFinishedConsumersDeployed() {
        return new ArrayList<>(List.of(
                init(0, 2),
                assigned(0, 0, "split-0"), state("after-0"),
                assigned(1, 0, "split-1"), state("after-1"),
                finished(0, 0, 0, "tm-a", 0),
                finished(0, 1, 0, "tm-b", 0),
                init(1, 2, 0, 64, 128)));
    }

    /** The partitions of {@link #sourcesFinishedConsumersDeployed()}'s sources, where they are kept. */
    static Map<String, String> sourcePartitionsKept() {
        return Map.of(pid(0, 0, 0, 0), "tm-a", pid(0, 1, 0, 0), "tm-b");
    }

    // ------------------------------------------------------------------ reports

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A running batch consumer v1/subtask reading both sources' kept partitions with the logged range. */
    static ReportedTask consumer(int subtask, int attempt, String tm) {
        int from = subtask == 0 ? 0 : 64;
        int to = subtask == 0 ? 64 : 128;
        return batch(tm, 1, subtask, attempt, ReportedTask.State.RUNNING, List.of(
                new ReportedTask.InputRead(0, pid(0, 0, 0, 0), "tm-a", from, to),
                new ReportedTask.InputRead(0, pid(0, 1, 0, 0), "tm-b", from, to)), List.of(), List.of());
    }

    static ReportedTask batch(String tm, int vertex, int subtask, int attempt, ReportedTask.State state,
            List<ReportedTask.InputRead> inputs, List<ReportedTask.OutputPartition> outputs, List<byte[]> splits) {
        return new ReportedTask(tm, new ExecutionKey(vertex, subtask), attempt, state, 2, "session-1",
                new ReportedTask.BatchProgress(100, 10, inputs, outputs, splits));
    }

    /** A batch source reader v0/subtask holding these splits. */
    static ReportedTask reader(int subtask, int attempt, String tm, String... splits) {
        return batch(tm, 0, subtask, attempt, ReportedTask.State.RUNNING, List.of(),
                List.of(new ReportedTask.OutputPartition(0, pid(0, subtask, attempt, 0))),
                Arrays.stream(splits).map(AdoptionFixtures::utf8).toList());
    }

    /** A streaming task of run "run-1" that acknowledged {@code acknowledged} and was told {@code completed} completed. */
    static ReportedTask streaming(int vertex, int subtask, int attempt, String tm, long restored, long acknowledged,
            long completed) {
        return streaming(vertex, subtask, attempt, tm, ReportedTask.State.RUNNING, "run-1", restored, acknowledged,
                completed, List.of());
    }

    static ReportedTask streaming(int vertex, int subtask, int attempt, String tm, ReportedTask.State state,
            String run, long restored, long acknowledged, long completed, List<ReportedTask.SplitsReceived> splits) {
        return new ReportedTask(tm, new ExecutionKey(vertex, subtask), attempt, state, 2, "session-1",
                new ReportedTask.StreamingProgress(run, restored, acknowledged, completed, splits));
    }

    /** Every subtask of a streaming job with 2 subtasks per vertex, spread over tm-a and tm-b, with the same facts. */
    static List<ReportedTask> wholeStreamingJob(int vertices, int attempt, long restored, long acknowledged,
            long completed) {
        List<ReportedTask> reports = new ArrayList<>();
        for (int vertex = 0; vertex < vertices; vertex++) {
            for (int subtask = 0; subtask < 2; subtask++) {
                reports.add(streaming(vertex, subtask, attempt, subtask == 0 ? "tm-a" : "tm-b", restored, acknowledged,
                        completed));
            }
        }
        return reports;
    }
}
