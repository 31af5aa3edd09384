package io.duraflow.jobmanager.dispatcher;

import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.COUNT;
import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.JOB_ID;
import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.SOURCE;
import static io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.describe;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.jobmanager.dispatcher.DispatcherRecoveryHarness.Leader;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.mailbox.ManualMailbox;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batch job recovery through the dispatcher from a damaged job event log, as
 * {@link DispatcherRecoveryHarness} plays it: a corrupt log, or one that does not fit the job,
 * restarts the job from scratch (once the old log is deleted, its partitions released); a torn last
 * record is ignored and the rest recovered.
 */
class DispatcherRecoveryDamagedLogTest {
    @TempDir
    Path tempDir;

    private DispatcherRecoveryHarness harness;

    @BeforeEach
    void createHarness() {
        harness = new DispatcherRecoveryHarness(tempDir);
    }

    @AfterEach
    void closeLeaders() {
        // The test's temp dir is deleted after this.
        harness.close();
    }

    @Test
    void aCorruptEventLogRestartsTheJobFromScratchAndDeletesTheDamagedLog() throws IOException {
        List<String> sourceOutputs = harness.firstLeaderDiesWhileTheCountRuns();
        assertThat(harness.eventLogFiles()).extracting(p -> p.getFileName().toString()).containsExactly("events.0");
        flipPayloadByte(harness.eventLogFiles().get(0), 2);

        Leader second = harness.recovered(harness.leader("session-2"));
        harness.assertNewRunLogged("the damaged log is deleted");
        harness.register(second, sourceOutputs);
        second.dispatcher().startRecoveredJobs();
        harness.main.runDue();

        assertThat(second.taskManagers().releases()).as("nobody recovers the job: its old partitions go")
                .containsExactlyInAnyOrder(new Release("tm-1", JOB_ID, List.of(), true),
                        new Release("tm-2", JOB_ID, List.of(), true));
        assertThat(second.resourceManager().heldPartitions(JOB_ID)).isEmpty();
        assertThat(describe(second.taskManagers().deployments())).containsExactly("v0/0#0", "v0/1#0");
        assertThat(harness.status(second).getRestoredTasks()).isZero();

        harness.runSources(second, second.deployments(SOURCE));
        harness.awaitLogged(events -> events.stream().filter(JobEvent::hasExecutionFinished).count() == 2);
        assertThat(harness.eventsOnDisk()).as("a new log, from the start").filteredOn(JobEvent::hasExecutionFinished)
                .extracting(e -> e.getExecutionFinished().getAttempt()).containsOnly(0);
        second.deployments(COUNT).forEach(d -> harness.finish(second, d));
        harness.awaitCleanResult();
        assertThat(harness.results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.FINISHED);
    }

    @Test
    void aJobRestartedFromScratchStartsOnlyOnceItsOldLogIsDeleted() throws IOException {
        List<String> sourceOutputs = harness.firstLeaderDiesWhileTheCountRuns();
        flipPayloadByte(harness.eventLogFiles().get(0), 2);
        ManualMailbox io = new ManualMailbox();
        Leader second = harness.leader("session-2", io);
        CompletableFuture<Void> recovered = second.dispatcher().recover();
        io.runDue();
        harness.main.runDue();
        assertThat(recovered).isCompleted();
        harness.register(second, sourceOutputs);

        // Its writer would create events.1 next to the damaged events.0, to be deleted with it or to be
        // left alone after a gap.
        assertThat(harness.eventLogFiles()).hasSize(1);
        assertThat(second.taskManagers().deployments()).as("started before the old log is gone").isEmpty();
        io.runDue();
        harness.main.runDue();
        harness.assertNewRunLogged("the old log is deleted before the job starts");
        assertThat(describe(second.taskManagers().deployments())).containsExactly("v0/0#0", "v0/1#0");
    }

    @Test
    void aLogThatDoesNotFitTheJobRestartsItFromScratchAndReleasesItsPartitions() throws IOException {
        List<String> sourceOutputs = harness.firstLeaderDiesWhileTheCountRuns();
        // A later session recorded a finish of a vertex the job does not have.
        try (JobEventWriter writer = new JobEventWriter(LocalFileSystem.INSTANCE,
                FsPath.of(harness.eventLogDirectory()), 1024, Duration.ofHours(1))) {
            writer.append(JobEvent.newBuilder().setTimestampMs(1).setExecutionFinished(ExecutionFinished.newBuilder()
                    .setVertex(7).setSubtask(0).setAttempt(0).setTmId("tm-1")).build());
        }
        assertThat(harness.eventLogFiles()).extracting(p -> p.getFileName().toString())
                .containsExactly("events.0", "events.1");

        Leader second = harness.recovered(harness.leader("session-2"));
        harness.register(second, sourceOutputs);
        assertThat(second.resourceManager().heldPartitions(JOB_ID)).as("kept for the pending recovery").hasSize(2);
        assertThat(second.taskManagers().releases()).isEmpty();
        second.dispatcher().startRecoveredJobs();
        harness.main.runDue();

        assertThat(second.taskManagers().releases())
                .containsExactlyInAnyOrder(new Release("tm-1", JOB_ID, List.of(), true),
                        new Release("tm-2", JOB_ID, List.of(), true));
        assertThat(second.resourceManager().heldPartitions(JOB_ID)).isEmpty();
        harness.assertNewRunLogged("the old log is deleted");
        assertThat(describe(second.taskManagers().deployments())).containsExactly("v0/0#0", "v0/1#0");
        assertThat(harness.status(second).getRestoredTasks()).isZero();

        harness.runSources(second, second.deployments(SOURCE));
        second.deployments(COUNT).forEach(d -> harness.finish(second, d));
        harness.awaitCleanResult();
        assertThat(harness.results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.FINISHED);
    }

    @Test
    void aTornLastRecordIsIgnoredAndTheRestIsRecovered() throws IOException {
        List<String> sourceOutputs = harness.firstLeaderDiesWhileTheCountRuns();
        int recorded = harness.eventsOnDisk().size();
        Path log = harness.eventLogFiles().get(0);
        // The first leader died while writing VertexInitialized of the count (so before the count's
        // deployments were logged): the file ends a byte into that record.
        assertThat(harness.eventsOnDisk().get(recorded - 1).hasExecutionsDeployed()).as("the last record").isTrue();
        byte[] whole = Files.readAllBytes(log);
        for (int cut = 1; cut < whole.length; cut++) {
            Files.write(log, java.util.Arrays.copyOf(whole, whole.length - cut));
            if (harness.eventsOnDisk().size() == recorded - 2) {
                break;
            }
        }
        assertThat(harness.eventsOnDisk()).hasSize(recorded - 2)
                .noneMatch(e -> e.hasVertexInitialized() && e.getVertexInitialized().getVertex() == COUNT);

        Leader second = harness.recovered(harness.leader("session-2"));
        harness.register(second, sourceOutputs);
        second.dispatcher().startRecoveredJobs();
        harness.main.runDue();

        assertThat(second.deployments(SOURCE)).as("both sources are restored").isEmpty();
        assertThat(harness.status(second).getRestoredTasks()).isEqualTo(2);
        // The torn event was the only one to name the count: it is scheduled as if it never ran.
        assertThat(second.deployments(COUNT)).isNotEmpty().allSatisfy(d -> assertThat(d.attemptNumber()).isZero());
        assertThat(log).as("the old log stays for the next failover").exists();

        second.deployments(COUNT).forEach(d -> harness.finish(second, d));
        harness.awaitCleanResult();
        assertThat(harness.results.getResult(JOB_ID).orElseThrow().state()).isEqualTo(JobOutcome.FINISHED);
    }

    /** Flips the first payload byte of the record with this index: its checksum no longer matches. */
    private static void flipPayloadByte(Path logFile, int recordIndex) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "rw")) {
            long offset = 8; // the file header
            for (int i = 0; i < recordIndex; i++) {
                file.seek(offset);
                offset += 8 + file.readInt();
            }
            file.seek(offset + 8);
            int b = file.read();
            file.seek(offset + 8);
            file.write(b ^ 0xFF);
        }
    }
}
