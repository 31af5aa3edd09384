package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.checkpoint.StandaloneCheckpointIdCounter;
import io.duraflow.config.Configuration;
import io.duraflow.examples.WordCount;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.jobstore.CleanupRetryPolicy;
import io.duraflow.jobstore.FileSystemJobGraphStore;
import io.duraflow.jobstore.InMemoryJobResultStore;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.SubmittedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loading part of a take-over alone: what the stores of an earlier leader hold is sorted into
 * DIRTY entries to clean up, jobs to run again (with their event logs) and jobs that cannot be
 * re-created, and a stored job that cannot run again ends FAILED with a result entry. Store I/O,
 * plan building and the main thread all run inline.
 */
class StoredJobLoaderTest {
    @TempDir
    Path dir;

    private final ManualMailbox main = new ManualMailbox();
    private final InMemoryJobResultStore results = new InMemoryJobResultStore();
    private final List<JobResultEntry> stored = new ArrayList<>();
    private FileSystemJobGraphStore jobGraphs;
    private JobDirectories directories;
    private JobRegistry registry;
    private StoredJobLoader loader;

    @BeforeEach
    void setUp() {
        jobGraphs = new FileSystemJobGraphStore(LocalFileSystem.INSTANCE, FsPath.of(dir.resolve("job-graphs")));
        directories = JobDirectories.local(dir.resolve("jobs"));
        Configuration config = Configuration.fromMap(Map.of("execution.batch.job-recovery.enabled", "on"));
        ResourceManager resourceManager = new ResourceManager(main, main::now, 10_000, new RecordingGateways(main));
        Dispatcher.Services services = new Dispatcher.Services(results, jobGraphs, directories,
                CleanupRetryPolicy.none(), Runnable::run, Runnable::run, () -> { }, session -> true);
        JobFactory factory = new JobFactory(config, "session-1", resourceManager, main, main::now, directories,
                Runnable::run, job -> { }, Runnable::run, () -> true, jobId -> new StandaloneCheckpointIdCounter());
        registry = new JobRegistry(1 << 20, 100);
        JobCleanup cleanup = new JobCleanup(config, services, resourceManager, main, main::now, () -> { },
                () -> false, stored::add);
        loader = new StoredJobLoader(services, registry, factory, cleanup, main::now);
    }

    private void storedJob(String jobId, String jobClass) throws Exception {
        jobGraphs.put(new SubmittedJob(jobId, jobClass, Map.of("words", "10"), Map.of(), 1, 42));
    }

    private void eventLog(String jobId) {
        try (JobEventWriter writer = new JobEventWriter(LocalFileSystem.INSTANCE,
                directories.eventLogDirectory(jobId), 1 << 16, Duration.ofSeconds(1))) {
            writer.append(JobEvent.newBuilder().setTimestampMs(42).setVertexInitialized(
                    VertexInitialized.newBuilder().setVertex(0).setParallelism(1).addAllRangeBounds(List.of(0, 128)))
                    .build());
        }
    }

    private static JobResultEntry result(String jobId) {
        return new JobResultEntry(jobId, "", WordCount.class.getName(), JobOutcome.FINISHED, 42, 43, "", 0,
                Map.of(), Map.of(), List.of(), List.of());
    }

    private StoredJobLoader.Loaded load() {
        CompletableFuture<StoredJobLoader.Loaded> loaded = loader.load();
        main.runDue();
        assertThat(loaded).isCompleted();
        return loaded.join();
    }

    @Test
    void sortsWhatTheStoresHoldIntoCleanupsJobsToRunAndBrokenJobs() throws Exception {
        storedJob("with-log", WordCount.class.getName());
        eventLog("with-log");
        storedJob("without-log", WordCount.class.getName());
        storedJob("ended", WordCount.class.getName());
        results.createDirtyResult(result("ended"));
        storedJob("gone", "com.example.RemovedJob");
        storedJob("torn", WordCount.class.getName());
        Path tornFile = dir.resolve("job-graphs").resolve("torn.json");
        byte[] bytes = Files.readAllBytes(tornFile);
        Files.write(tornFile, java.util.Arrays.copyOf(bytes, bytes.length / 2));

        StoredJobLoader.Loaded loaded = load();

        assertThat(loaded.stored().dirty()).extracting(JobResultEntry::jobId).containsExactly("ended");
        assertThat(loaded.stored().broken()).singleElement().satisfies(broken -> {
            assertThat(broken.jobId()).isEqualTo("torn");
            assertThat(broken.job()).isEmpty();
            assertThat(broken.cause()).contains("unreadable").contains("torn.json");
        });
        assertThat(loaded.rebuilt()).extracting(rebuilt -> rebuilt.stored().job().jobId())
                .as("a job with a result never runs again").containsExactlyInAnyOrder("with-log", "without-log", "gone");
        for (StoredJobLoader.Rebuilt rebuilt : loaded.rebuilt()) {
            switch (rebuilt.stored().job().jobId()) {
                case "with-log" -> {
                    assertThat(rebuilt.built()).isNotNull();
                    assertThat(rebuilt.stored().events()).hasSize(1);
                    assertThat(rebuilt.stored().logProblem()).isEmpty();
                }
                case "without-log" -> {
                    assertThat(rebuilt.built()).isNotNull();
                    assertThat(rebuilt.stored().events()).isEmpty();
                    assertThat(rebuilt.stored().logProblem()).as("no log is not a damaged log").isEmpty();
                }
                default -> {
                    assertThat(rebuilt.built()).isNull();
                    assertThat(rebuilt.failure()).contains("cannot be rebuilt").contains("com.example.RemovedJob");
                }
            }
        }
    }

    @Test
    void aStoredJobThatCannotRunAgainEndsFailedWithItsClassAndParameters() throws Exception {
        SubmittedJob job = new SubmittedJob("gone", "com.example.RemovedJob", Map.of("words", "10"), Map.of(), 1, 7);

        loader.failStoredJob(new StoredJobLoader.Unrecoverable("gone", java.util.Optional.of(job), "it is gone"));
        main.runDue();

        JobResultEntry entry = results.getResult("gone").orElseThrow();
        assertThat(entry.state()).isEqualTo(JobOutcome.FAILED);
        assertThat(entry.jobClass()).isEqualTo("com.example.RemovedJob");
        assertThat(entry.submittedAtMs()).isEqualTo(7);
        assertThat(entry.params()).isEqualTo(Map.of("words", "10"));
        assertThat(stored).extracting(JobResultEntry::jobId).containsExactly("gone");
    }

    @Test
    void aDirtyEntryOfAnEarlierLeaderIsRememberedAndCleanedUp() throws Exception {
        results.createDirtyResult(result("ended"));

        loader.finishCleanup(result("ended"));
        main.runDue();

        assertThat(registry.result("ended")).isPresent();
        assertThat(results.hasCleanJobResultEntry("ended")).isTrue();
    }
}
