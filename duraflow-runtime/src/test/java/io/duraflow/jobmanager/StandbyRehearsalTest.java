package io.duraflow.jobmanager;

import io.duraflow.jobmanager.dispatcher.JobDirectories;
import io.duraflow.jobmanager.dispatcher.StoredJobRecovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.jobstore.InMemoryJobGraphStore;
import io.duraflow.jobstore.InMemoryJobResultStore;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.SubmittedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A standby rehearses the reads a take-over starts with, and never writes. */
class StandbyRehearsalTest {
    @TempDir
    Path dir;

    private final InMemoryJobGraphStore jobGraphs = new InMemoryJobGraphStore();
    private final InMemoryJobResultStore results = new InMemoryJobResultStore();

    private JobDirectories directories() {
        return JobDirectories.local(dir.resolve("jobs"));
    }

    private void storedJob(String jobId, boolean withEventLog) {
        jobGraphs.put(new SubmittedJob(jobId, "com.example.Job", Map.of(), Map.of(), 1, 42));
        if (withEventLog) {
            try (JobEventWriter writer = new JobEventWriter(LocalFileSystem.INSTANCE,
                    directories().eventLogDirectory(jobId), 1 << 16, Duration.ofSeconds(1))) {
                writer.append(JobEvent.newBuilder().setTimestampMs(42).setVertexInitialized(
                        VertexInitialized.newBuilder().setVertex(0).setParallelism(1).addAllRangeBounds(List.of(0, 128)))
                        .build());
            }
        }
    }

    private List<String> filesWithSizes() throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).map(f -> {
                try {
                    return dir.relativize(f) + ":" + Files.size(f) + ":" + Files.getLastModifiedTime(f);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }).sorted().toList();
        }
    }

    @Test
    void readsTheEventLogOfEveryRunningJobAndChangesNoFile() throws Exception {
        storedJob("running", true);
        storedJob("no-log-yet", false);
        storedJob("ended", true);
        results.createDirtyResult(new JobResultEntry("ended", "", "com.example.Job", JobOutcome.FINISHED, 42, 43,
                "", 0, Map.of(), Map.of(), List.of(), List.of()));
        List<String> before = filesWithSizes();

        int logs = StoredJobRecovery.rehearseReads(results, jobGraphs, directories(), () -> true);

        assertThat(logs).as("only the running job's log: the ended one has a result").isEqualTo(1);
        assertThat(filesWithSizes()).isEqualTo(before);
        assertThat(results.getDirtyResults()).extracting(JobResultEntry::jobId).containsExactly("ended");
    }

    @Test
    void anElectedStandbyStopsBeforeTheNextJob() throws Exception {
        storedJob("a", true);
        storedJob("b", true);
        AtomicInteger asked = new AtomicInteger();

        assertThat(StoredJobRecovery.rehearseReads(results, jobGraphs, directories(), () -> asked.incrementAndGet() <= 1))
                .isEqualTo(1);
    }

    @Test
    void theRehearsalEndsOnceItReadALogOrTheStandbyIsElected() {
        AtomicInteger runs = new AtomicInteger();
        StandbyWarmUp.rehearseWhileStandingBy(() -> true, go -> runs.incrementAndGet());
        assertThat(runs).as("an event log read: warm").hasValue(1);

        StandbyWarmUp.rehearseWhileStandingBy(() -> false, go -> runs.incrementAndGet());
        assertThat(runs).as("elected: nothing to rehearse").hasValue(1);
    }

    @Test
    void aStoreThatFailsIsNotTheStandbysProblem() {
        AtomicInteger runs = new AtomicInteger();
        StandbyWarmUp.rehearseWhileStandingBy(() -> runs.get() == 0, go -> {
            runs.incrementAndGet();
            throw new java.io.IOException("store down");
        });
        assertThat(runs).hasValue(1);
    }
}
