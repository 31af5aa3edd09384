package io.duraflow.jobmanager.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.jobmanager.events.JobEventLogFormat;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.events.proto.Collected;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.plan.JobGraph;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A finished task whose collected result is larger than a job event log record may be survives a
 * JobManager failover: the real writer records it, the reader gives it back, and the planner takes
 * the task over as finished with its data. (A record of the whole result used to stop the log.)
 */
class LargeCollectedResultRecoveryTest {
    @TempDir
    Path dir;

    /** v0: source (2 tasks) -> edge 0 -> v1: sum by key -> collect "sums". */
    private static JobGraph graph() {
        JobBuilder job = new JobBuilder("large-result");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    private static JobEvent event(VertexInitialized.Builder initialized) {
        return JobEvent.newBuilder().setTimestampMs(1).setVertexInitialized(initialized).build();
    }

    private static JobEvent sourceFinished(int subtask) {
        return JobEvent.newBuilder().setTimestampMs(2).setExecutionFinished(ExecutionFinished.newBuilder()
                .setVertex(0).setSubtask(subtask).setTmId("tm-1").setTmAddress("127.0.0.1:6122")
                .addPartitions(ProducedPartition.newBuilder().setEdgeId(0).setPartitionId("p-0-" + subtask)
                        .addSubpartitionBytes(40).setRecords(7))).build();
    }

    private static JobEvent sinkFinished(int subtask, ByteString data) {
        return JobEvent.newBuilder().setTimestampMs(3).setExecutionFinished(ExecutionFinished.newBuilder()
                .setVertex(1).setSubtask(subtask).setTmId("tm-1").setTmAddress("127.0.0.1:6122")
                .addCollected(Collected.newBuilder().setName("sums").setSubtask(subtask).setRecords(1000)
                        .setData(data))).build();
    }

    private static ByteString randomBytes(int size) {
        byte[] bytes = new byte[size];
        new Random(size).nextBytes(bytes);
        return ByteString.copyFrom(bytes);
    }

    /** Records the job, both sinks finished, through a real writer with the default limits; returns the large data. */
    private ByteString recordFinishedJob(int largeBytes) {
        ByteString large = randomBytes(largeBytes);
        try (JobEventWriter writer = new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), 1 << 20,
                Duration.ofSeconds(1))) {
            for (JobEvent event : List.of(event(VertexInitialized.newBuilder().setVertex(0).setParallelism(2)),
                    sourceFinished(0), sourceFinished(1),
                    event(VertexInitialized.newBuilder().setVertex(1).setParallelism(2).addRangeBounds(0)
                            .addRangeBounds(64).addRangeBounds(128)),
                    sinkFinished(0, large), sinkFinished(1, ByteString.copyFromUtf8("small")))) {
                writer.append(event);
            }
            writer.close();
            assertThat(writer.disabledCause()).as("recording goes on").isEmpty();
            assertThat(writer.droppedEvents()).isZero();
        }
        return large;
    }

    @Test
    void aCollectedResultLargerThanARecordSurvivesARecovery() throws IOException {
        ByteString large = recordFinishedJob(JobEventLogFormat.MAX_PAYLOAD_BYTES + 1024);

        JobEventReader.ReadResult read = JobEventReader.readAll(dir);
        RecoveryPlan plan = RecoveryPlanner.plan(graph(), read.events(), Map.of());

        assertThat(read.warnings()).isEmpty();
        assertThat(plan.isRestored(1, 0)).as("the sink with the large result is taken over as finished").isTrue();
        assertThat(plan.isRestored(1, 1)).isTrue();
        assertThat(plan.nextAttempts()).isEmpty();
        List<Collected> collected = plan.restored().get(new ExecutionKey(1, 0)).collected();
        assertThat(collected).singleElement().satisfies(c -> {
            assertThat(c.getRecords()).isEqualTo(1000);
            assertThat(c.getData().size()).isEqualTo(large.size());
            assertThat(c.getData().equals(large)).as("the same bytes").isTrue();
        });
    }

    @Test
    void aCorruptCollectedDataFileRunsThatTaskAgainInsteadOfLosingData() throws IOException {
        recordFinishedJob(2 << 20);
        Path file;
        try (Stream<Path> files = Files.list(dir)) {
            file = files.filter(f -> f.getFileName().toString().startsWith("collected.")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 1;
        Files.write(file, bytes);

        JobEventReader.ReadResult read = JobEventReader.readAll(dir);
        RecoveryPlan plan = RecoveryPlanner.plan(graph(), read.events(), Map.of("p-0-0", "tm-1", "p-0-1", "tm-1"));

        assertThat(read.warnings()).singleElement().asString().contains(file.toString()).contains("checksum mismatch")
                .contains("v1/0#0, so that task runs again");
        assertThat(plan.isRestored(1, 0)).isFalse();
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(new ExecutionKey(1, 0), 1));
        assertThat(plan.isRestored(1, 1)).isTrue();
        assertThat(plan.isRestored(0, 0)).as("its input is still there").isTrue();
        assertThat(plan.isRestored(0, 1)).isTrue();
    }
}
