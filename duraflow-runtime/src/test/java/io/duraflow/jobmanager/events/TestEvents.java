package io.duraflow.jobmanager.events;

import com.google.protobuf.ByteString;
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
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/** Events of every type, and log files written by hand (independently of {@link JobEventWriter}). */
final class TestEvents {
    /** 2024-01-01T12:00:01.234Z */
    static final long T0 = Instant.parse("2024-01-01T12:00:01.234Z").toEpochMilli();

    private TestEvents() {
    }

    static JobEvent vertexInitialized() {
        return JobEvent.newBuilder().setTimestampMs(T0)
                .setVertexInitialized(VertexInitialized.newBuilder().setVertex(1).setParallelism(3)
                        .addAllRangeBounds(List.of(0, 43, 86, 128)))
                .build();
    }

    static JobEvent executionFinished() {
        return JobEvent.newBuilder().setTimestampMs(T0 + 1000)
                .setExecutionFinished(ExecutionFinished.newBuilder()
                        .setVertex(0).setSubtask(1).setAttempt(0)
                        .setTmId("tm-ab12").setTmAddress("127.0.0.1:4567")
                        .addPartitions(ProducedPartition.newBuilder().setEdgeId(0).setPartitionId("p-0-1-0")
                                .addAllSubpartitionBytes(List.of(600_000L, 29_146L)).setRecords(3_000_000))
                        .addPartitions(ProducedPartition.newBuilder().setEdgeId(1).setPartitionId("p-1-1-0")
                                .addAllSubpartitionBytes(List.of(629_146L)).setRecords(2_000_000))
                        .setRecordsIn(5_000_000).setRecordsOut(5_000_000)
                        .putCounters("lines", 42).putCounters("bad-lines", 0)
                        .addCollected(Collected.newBuilder().setName("out").setSubtask(1).setRecords(3)
                                .setData(ByteString.copyFrom(new byte[] {1, 2, 3}))))
                .build();
    }

    static JobEvent executionsReset() {
        return JobEvent.newBuilder().setTimestampMs(T0 + 2000)
                .setExecutionsReset(ExecutionsReset.newBuilder()
                        .addExecutions(ExecutionRef.newBuilder().setVertex(1).setSubtask(0).setNewAttempt(1))
                        .addExecutions(ExecutionRef.newBuilder().setVertex(1).setSubtask(2).setNewAttempt(1))
                        .setReason("task v1/0 failed: disk full"))
                .build();
    }

    static JobEvent splitsAssigned() {
        return JobEvent.newBuilder().setTimestampMs(T0 + 3000)
                .setSplitsAssigned(SplitsAssigned.newBuilder().setNodeId(0).setSubtask(1).setAttempt(0)
                        .addSplits(ByteString.copyFrom("file-1:0-100", StandardCharsets.UTF_8))
                        .addSplits(ByteString.copyFrom("file-1:100-200", StandardCharsets.UTF_8)))
                .build();
    }

    static JobEvent splitsReturned() {
        return JobEvent.newBuilder().setTimestampMs(T0 + 4000)
                .setSplitsReturned(SplitsReturned.newBuilder().setNodeId(0).setSubtask(1).setCount(2))
                .build();
    }

    static JobEvent coordinatorState() {
        return JobEvent.newBuilder().setTimestampMs(T0 + 5000)
                .setCoordinatorState(CoordinatorState.newBuilder().setNodeId(0).setCheckpointId(-1)
                        .setState(ByteString.copyFrom(new byte[1536])))
                .build();
    }

    /** One event of every type, in a plausible order. */
    static List<JobEvent> everyType() {
        return List.of(vertexInitialized(), executionsDeployed(), splitsAssigned(), executionFinished(),
                executionsReset(), splitsReturned(), coordinatorState(), runStarted());
    }

    static JobEvent executionsDeployed() {
        return JobEvent.newBuilder().setTimestampMs(T0 + 500)
                .setExecutionsDeployed(io.duraflow.jobmanager.events.proto.ExecutionsDeployed.newBuilder()
                        .setTmId("tm-1").addExecutions(io.duraflow.jobmanager.events.proto.ExecutionRef.newBuilder()
                                .setVertex(0).setSubtask(1).setNewAttempt(0)))
                .build();
    }

    static JobEvent runStarted() {
        return JobEvent.newBuilder().setTimestampMs(T0 + 6_000)
                .setRunStarted(io.duraflow.jobmanager.events.proto.RunStarted.newBuilder().setReason("test"))
                .build();
    }

    /** A small, distinct event: splits returned with {@code count = n}. */
    static JobEvent numbered(int n) {
        return JobEvent.newBuilder().setTimestampMs(T0 + n)
                .setSplitsReturned(SplitsReturned.newBuilder().setNodeId(7).setSubtask(n % 5).setCount(n))
                .build();
    }

    /** A small event that says which thread appended it, and its sequence number in that thread. */
    static JobEvent fromThread(int thread, int sequence) {
        return JobEvent.newBuilder().setTimestampMs(T0)
                .setSplitsReturned(SplitsReturned.newBuilder().setNodeId(thread).setCount(sequence))
                .build();
    }

    /** Writes a complete log file with a header and these events; returns the offset of each record. */
    static long[] writeFile(Path file, List<JobEvent> events) throws IOException {
        Files.createDirectories(file.getParent());
        long[] offsets = new long[events.size()];
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(JobEventLogFormat.fileHeader().array());
            long offset = JobEventLogFormat.FILE_HEADER_BYTES;
            for (int i = 0; i < events.size(); i++) {
                byte[] record = JobEventLogFormat.encodeRecord(events.get(i));
                out.write(record);
                offsets[i] = offset;
                offset += record.length;
            }
        }
        return offsets;
    }
}
