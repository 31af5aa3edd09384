package io.duraflow.jobmanager.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.ExecutionsReset;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class JobEventFormatterTest {
    private static String format(JobEvent event) {
        return JobEventFormatter.format(event, ZoneOffset.UTC);
    }

    @Test
    void vertexInitialized() {
        assertThat(format(TestEvents.vertexInitialized()))
                .isEqualTo("12:00:01.234 vertex 1 initialized: parallelism 3, ranges [0,43,86,128]");
    }

    @Test
    void runStarted() {
        JobEvent event = JobEvent.newBuilder().setTimestampMs(TestEvents.T0)
                .setRunStarted(io.duraflow.jobmanager.events.proto.RunStarted.newBuilder()
                        .setReason("its event log is damaged"))
                .build();
        assertThat(format(event)).isEqualTo("12:00:01.234 the job starts over from the beginning (its event log is"
                + " damaged); replay ignores the events above");
    }

    @Test
    void manyRangeBoundsAreElided() {
        JobEvent event = JobEvent.newBuilder().setTimestampMs(TestEvents.T0)
                .setVertexInitialized(VertexInitialized.newBuilder().setVertex(2).setParallelism(1000)
                        .addAllRangeBounds(IntStream.rangeClosed(0, 1000).boxed().toList()))
                .build();

        assertThat(format(event)).isEqualTo("12:00:01.234 vertex 2 initialized: parallelism 1000,"
                + " ranges [0,1,2,3,4,5,6,7,8,9,10,...,1000] (1,001 bounds)");
    }

    @Test
    void executionFinished() {
        assertThat(format(TestEvents.executionFinished()))
                .isEqualTo("12:00:02.234 execution v0/1#0 finished on tm-ab12 (127.0.0.1:4567): 2 partitions, 1.2 MiB,"
                        + " 5,000,000 records in, 5,000,000 records out, counters {bad-lines=0, lines=42},"
                        + " collected 3 records");
    }

    @Test
    void executionFinishedWithoutOutput() {
        JobEvent event = TestEvents.executionFinished().toBuilder()
                .setExecutionFinished(TestEvents.executionFinished().getExecutionFinished().toBuilder()
                        .clearPartitions().clearCounters().clearCollected().setRecordsIn(1).setRecordsOut(0)
                        .addPartitions(io.duraflow.jobmanager.events.proto.ProducedPartition.newBuilder()
                                .addSubpartitionBytes(512)))
                .build();

        assertThat(format(event)).isEqualTo("12:00:02.234 execution v0/1#0 finished on tm-ab12 (127.0.0.1:4567):"
                + " 1 partition, 512 B, 1 records in, 0 records out");
    }

    @Test
    void executionsReset() {
        assertThat(format(TestEvents.executionsReset()))
                .isEqualTo("12:00:03.234 executions reset: v1/0#1, v1/2#1 (task v1/0 failed: disk full)");
    }

    @Test
    void manyResetExecutionsAreElidedAndTheReasonStaysOnOneLine() {
        ExecutionsReset.Builder reset = ExecutionsReset.newBuilder().setReason("line one\nline two");
        for (int subtask = 0; subtask < 12; subtask++) {
            reset.addExecutions(ExecutionRef.newBuilder().setVertex(3).setSubtask(subtask).setNewAttempt(2));
        }
        JobEvent event = JobEvent.newBuilder().setTimestampMs(TestEvents.T0).setExecutionsReset(reset).build();

        assertThat(format(event)).isEqualTo("12:00:01.234 executions reset: v3/0#2, v3/1#2, v3/2#2, v3/3#2, v3/4#2,"
                + " v3/5#2, v3/6#2, v3/7#2, v3/8#2, v3/9#2 and 2 more (line one\\nline two)");
    }

    @Test
    void splitsAssignedAndReturned() {
        assertThat(format(TestEvents.splitsAssigned())).isEqualTo("12:00:04.234 splits 2 -> source node 0 subtask 1 #0");
        assertThat(format(TestEvents.splitsReturned()))
                .isEqualTo("12:00:05.234 splits 2 <- source node 0 subtask 1 (returned to the enumerator)");
    }

    @Test
    void coordinatorState() {
        assertThat(format(TestEvents.coordinatorState()))
                .isEqualTo("12:00:06.234 coordinator of node 0: 1.5 KiB of state at checkpoint -1");
    }

    @Test
    void coordinatorStateWithoutSnapshot() {
        JobEvent event = JobEvent.newBuilder().setTimestampMs(TestEvents.T0)
                .setCoordinatorState(io.duraflow.jobmanager.events.proto.CoordinatorState.newBuilder().setNodeId(3)
                        .setCheckpointId(-1).setSnapshotUnsupported(true))
                .build();
        assertThat(format(event)).isEqualTo("12:00:01.234 coordinator of node 3: no snapshot (its split enumerator"
                + " cannot take one mid-job)");
    }

    @Test
    void anEventWithoutTypeStillFormats() {
        assertThat(format(JobEvent.newBuilder().setTimestampMs(TestEvents.T0).build()))
                .isEqualTo("12:00:01.234 event of an unknown type");
    }

    @Test
    void timesAreShownInTheGivenZone() {
        assertThat(JobEventFormatter.format(TestEvents.vertexInitialized(), ZoneId.of("Europe/Berlin")))
                .startsWith("13:00:01.234 vertex 1");
        assertThat(JobEventFormatter.format(TestEvents.vertexInitialized())).endsWith("ranges [0,43,86,128]");
    }

    @Test
    void sizesUseBinaryUnitsWithOneDecimal() {
        assertThat(JobEventFormatter.bytes(0)).isEqualTo("0 B");
        assertThat(JobEventFormatter.bytes(1023)).isEqualTo("1023 B");
        assertThat(JobEventFormatter.bytes(1024)).isEqualTo("1.0 KiB");
        assertThat(JobEventFormatter.bytes(1_258_292)).isEqualTo("1.2 MiB");
        assertThat(JobEventFormatter.bytes((1L << 20) - 1)).isEqualTo("1.0 MiB");
        assertThat(JobEventFormatter.bytes(5L << 30)).isEqualTo("5.0 GiB");
        assertThat(JobEventFormatter.bytes(Long.MAX_VALUE)).isEqualTo("8.0 EiB");
    }
}
