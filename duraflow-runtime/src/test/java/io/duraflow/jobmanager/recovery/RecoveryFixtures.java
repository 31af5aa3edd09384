package io.duraflow.jobmanager.recovery;

import com.google.protobuf.ByteString;
import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import io.duraflow.jobmanager.events.proto.Collected;
import io.duraflow.jobmanager.events.proto.CoordinatorState;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.ExecutionsReset;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.jobmanager.events.proto.SplitsAssigned;
import io.duraflow.jobmanager.events.proto.SplitsReturned;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.plan.JobGraph;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Job graphs and hand-written job event logs for the recovery planner's tests: the shapes of the
 * jobs, the events as the JobMaster logs them, and the partitions TaskManagers report they kept.
 */
final class RecoveryFixtures {
    private RecoveryFixtures() {}

    // ------------------------------------------------------------------ job graphs

    /** v0: source "numbers" (2 tasks, node 0) -> edge 0 -> v1: sum by key (decided at runtime) -> collect. */
    static JobGraph wordCount() {
        return wordCount(2);
    }

    static JobGraph wordCount(int sourceParallelism) {
        JobBuilder job = new JobBuilder("word-count");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(sourceParallelism)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    /**
     * v0: source (2 tasks) -> edge 0 -> v1: reduce (2 tasks, fixed) -> edge 1 -> v2: reduce
     * (decided at runtime) -> collect.
     */
    static JobGraph threeStagesFixedMiddle() {
        JobBuilder job = new JobBuilder("three-stages");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(2)
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    /** As {@link #threeStagesFixedMiddle()} but the middle's parallelism is decided at runtime too. */
    static JobGraph threeStagesAdaptive() {
        JobBuilder job = new JobBuilder("three-stages");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    /** v0: source (2 tasks) feeding two reduces: edge 0 -> v1, edge 1 -> v2, both decided at runtime. */
    static JobGraph twoBranches() {
        JobBuilder job = new JobBuilder("branches");
        Flow<Long> numbers = job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2);
        numbers.keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).collect("tens");
        numbers.keyBy(n -> n % 7, Types.LONG).reduce(Long::sum).collect("sevens");
        return JobGraph.compile(job.plan(), 2);
    }

    static final int SOURCE_NODE = 0;

    // ------------------------------------------------------------------ events, by hand

    static String pid(int vertex, int subtask, int attempt, int edge) {
        return "job-v" + vertex + "-s" + subtask + "-a" + attempt + "-e" + edge;
    }

    static JobEvent init(int vertex, int parallelism, int... bounds) {
        VertexInitialized.Builder event = VertexInitialized.newBuilder().setVertex(vertex).setParallelism(parallelism);
        Arrays.stream(bounds).forEach(event::addRangeBounds);
        return JobEvent.newBuilder().setTimestampMs(1).setVertexInitialized(event).build();
    }

    /** An attempt finished on {@code tm}, writing one partition per given edge. */
    static JobEvent finished(int vertex, int subtask, int attempt, String tm, int... edges) {
        ExecutionFinished.Builder event = ExecutionFinished.newBuilder().setVertex(vertex).setSubtask(subtask)
                .setAttempt(attempt).setTmId(tm).setTmAddress(tm + ".local:6122").setRecordsIn(100 + subtask)
                .setRecordsOut(10 + subtask);
        for (int edge : edges) {
            event.addPartitions(ProducedPartition.newBuilder().setEdgeId(edge)
                    .setPartitionId(pid(vertex, subtask, attempt, edge)).addSubpartitionBytes(40).addSubpartitionBytes(2)
                    .setRecords(7));
        }
        return JobEvent.newBuilder().setTimestampMs(2).setExecutionFinished(event).build();
    }

    /** A collecting sink finished: no partitions, collected records. */
    static JobEvent sinkFinished(int vertex, int subtask, int attempt, String tm, String data) {
        return JobEvent.newBuilder().setTimestampMs(2).setExecutionFinished(ExecutionFinished.newBuilder()
                .setVertex(vertex).setSubtask(subtask).setAttempt(attempt).setTmId(tm).setTmAddress(tm + ".local:6122")
                .addCollected(Collected.newBuilder().setName("sums").setSubtask(subtask).setRecords(1)
                        .setData(ByteString.copyFromUtf8(data)))).build();
    }

    static JobEvent reset(int vertex, int subtask, int newAttempt) {
        return JobEvent.newBuilder().setTimestampMs(3).setExecutionsReset(ExecutionsReset.newBuilder()
                .addExecutions(ExecutionRef.newBuilder().setVertex(vertex).setSubtask(subtask)
                        .setNewAttempt(newAttempt))
                .setReason("test")).build();
    }

    static JobEvent assigned(int node, int subtask, int attempt, String... splits) {
        SplitsAssigned.Builder event = SplitsAssigned.newBuilder().setNodeId(node).setSubtask(subtask)
                .setAttempt(attempt);
        for (String split : splits) {
            event.addSplits(ByteString.copyFromUtf8(split));
        }
        return JobEvent.newBuilder().setTimestampMs(4).setSplitsAssigned(event).build();
    }

    static JobEvent returned(int node, int subtask, int count) {
        return JobEvent.newBuilder().setTimestampMs(5).setSplitsReturned(SplitsReturned.newBuilder().setNodeId(node)
                .setSubtask(subtask).setCount(count)).build();
    }

    static JobEvent state(int node, String state) {
        return JobEvent.newBuilder().setTimestampMs(6).setCoordinatorState(CoordinatorState.newBuilder()
                .setNodeId(node).setCheckpointId(-1).setState(ByteString.copyFromUtf8(state))).build();
    }

    /** The coordinator state after a split event of a source whose enumerator cannot snapshot. */
    static JobEvent noSnapshot(int node) {
        return JobEvent.newBuilder().setTimestampMs(6).setCoordinatorState(CoordinatorState.newBuilder()
                .setNodeId(node).setCheckpointId(-1).setSnapshotUnsupported(true)).build();
    }

    /** As the JobMaster logs an assignment of a source whose enumerator cannot snapshot. */
    static List<JobEvent> assignedWithoutSnapshot(int subtask, int attempt, String... splits) {
        return List.of(assigned(SOURCE_NODE, subtask, attempt, splits), noSnapshot(SOURCE_NODE));
    }

    /** As the JobMaster logs an assignment: the splits, then the enumerator's state after it. */
    static List<JobEvent> assignedWithState(int subtask, int attempt, String state, String... splits) {
        return List.of(assigned(SOURCE_NODE, subtask, attempt, splits), state(SOURCE_NODE, state));
    }

    static List<JobEvent> log(Object... parts) {
        List<JobEvent> events = new ArrayList<>();
        for (Object part : parts) {
            if (part instanceof JobEvent event) {
                events.add(event);
            } else {
                @SuppressWarnings("unchecked")
                List<JobEvent> list = (List<JobEvent>) part;
                events.addAll(list);
            }
        }
        return events;
    }

    /** partition id -> TaskManager, as the TaskManagers report what they kept. */
    static Map<String, String> held(String... pidThenTm) {
        Map<String, String> held = new HashMap<>();
        for (int i = 0; i < pidThenTm.length; i += 2) {
            held.put(pidThenTm[i], pidThenTm[i + 1]);
        }
        return held;
    }

    static ExecutionKey key(int vertex, int subtask) {
        return new ExecutionKey(vertex, subtask);
    }

    static List<String> strings(List<byte[]> splits) {
        return splits.stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList();
    }

    /** Both sources of word count got a split and finished on tm-1 and tm-2; the reduce got parallelism 2. */
    static List<JobEvent> sourcesFinished() {
        return log(assignedWithState(0, 0, "enum-1", "split-a"), assignedWithState(1, 0, "enum-2", "split-b"),
                finished(0, 0, 0, "tm-1", 0), finished(0, 1, 0, "tm-2", 0), init(1, 2, 0, 64, 128));
    }

    static final Map<String, String> SOURCE_OUTPUTS = Map.of(pid(0, 0, 0, 0), "tm-1", pid(0, 1, 0, 0), "tm-2");
}
