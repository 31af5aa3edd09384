package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.MemorySize;
import io.duraflow.examples.WordCount;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.jobstore.CleanupRetryPolicy;
import io.duraflow.jobstore.FileSystemJobGraphStore;
import io.duraflow.jobstore.InMemoryJobResultStore;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.ManualClock;
import io.duraflow.jobstore.SubmittedJob;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * the defects around stored jobs and results: one unreadable or unbuildable stored job
 * ends alone (FAILED, with a result) instead of keeping the leader down; results expire from
 * memory and store together; ended jobs leave the leader's memory.
 */
class DispatcherStoredJobsTest {
    @TempDir
    Path tempDir;

    private final ManualMailbox main = new ManualMailbox();
    private final ManualClock storeClock = new ManualClock(1_000_000);
    private InMemoryJobResultStore results = new InMemoryJobResultStore();
    private FileSystemJobGraphStore jobGraphs;
    private final AtomicInteger gaveUp = new AtomicInteger();

    private Dispatcher dispatcher(String session, Configuration config) {
        if (jobGraphs == null) {
            jobGraphs = new FileSystemJobGraphStore(LocalFileSystem.INSTANCE, FsPath.of(tempDir.resolve("job-graphs")));
        }
        ResourceManager resourceManager = new ResourceManager(session, main, main::now, 10_000, 10_000);
        Dispatcher.Services services = new Dispatcher.Services(results, jobGraphs,
                JobDirectories.local(tempDir.resolve("jobs")), CleanupRetryPolicy.none(), Runnable::run,
                Runnable::run, gaveUp::incrementAndGet, s -> true);
        return new Dispatcher(config, session, resourceManager, main, main::now, services);
    }

    private <T> T await(CompletableFuture<T> future) {
        main.runDue();
        assertThat(future).isDone();
        return future.join();
    }

    private JobStatus status(Dispatcher dispatcher, String jobId) {
        return await(dispatcher.status(jobId));
    }

    @Test
    void aTornJobGraphFileFailsOnlyThatJobAndTheOthersRecover() throws Exception {
        Dispatcher first = dispatcher("s1", new Configuration());
        await(first.submit(DispatcherTest.wordCount("good")));
        await(first.submit(DispatcherTest.wordCount("torn")));
        first.close();
        Path tornFile = tempDir.resolve("job-graphs").resolve("torn.json");
        byte[] bytes = Files.readAllBytes(tornFile);
        Files.write(tornFile, java.util.Arrays.copyOf(bytes, bytes.length / 2));

        Dispatcher second = dispatcher("s2", new Configuration());
        CompletableFuture<Void> recovered = second.recover();
        main.runDue();

        assertThat(recovered).as("one bad file must not fail the take-over").isCompleted();
        assertThat(gaveUp).hasValue(0);
        assertThat(status(second, "good").getState()).isEqualTo(JobState.JOB_RUNNING);
        JobStatus torn = status(second, "torn");
        assertThat(torn.getState()).isEqualTo(JobState.JOB_FAILED);
        assertThat(torn.getFailure()).contains("torn.json").contains("unreadable");
        assertThat(results.getResult("torn").orElseThrow().state()).isEqualTo(JobOutcome.FAILED);
        assertThat(results.hasCleanJobResultEntry("torn")).as("cleaned up like any ended job").isTrue();
        assertThat(jobGraphs.jobIds()).containsExactly("good");
    }

    @Test
    void aStoredJobWhoseClassNoLongerBuildsEndsFailedWithAResult() throws Exception {
        jobGraphs = new FileSystemJobGraphStore(LocalFileSystem.INSTANCE, FsPath.of(tempDir.resolve("job-graphs")));
        jobGraphs.put(new SubmittedJob("gone", "com.example.RemovedJob", Map.of(), Map.of(), 1, 42));

        Dispatcher dispatcher = dispatcher("s1", new Configuration());
        await(dispatcher.recover());

        JobStatus status = status(dispatcher, "gone");
        assertThat(status.getState()).isEqualTo(JobState.JOB_FAILED);
        assertThat(status.getFailure()).contains("cannot be rebuilt").contains("com.example.RemovedJob");
        assertThat(status.getJobClass()).isEqualTo("com.example.RemovedJob");
        assertThat(results.hasCleanJobResultEntry("gone")).isTrue();
        assertThat(jobGraphs.jobIds()).isEmpty();
        assertThat(dispatcher.runningJobs()).isZero();
    }

    @Test
    void anExpiredResultIsForgottenByMemoryAndStoreTogether() throws Exception {
        results = new InMemoryJobResultStore(false, Duration.ofHours(1), storeClock);
        Dispatcher dispatcher = dispatcher("s1", new Configuration());
        await(dispatcher.submit(DispatcherTest.wordCount("old")));
        dispatcher.cancel("old");
        main.runDue();
        assertThat(status(dispatcher, "old").getState()).isEqualTo(JobState.JOB_CANCELED);

        storeClock.advance(Duration.ofHours(2));
        dispatcher.expireCleanResults();
        main.runDue();

        assertThat(results.hasJobResultEntry("old")).isFalse();
        CompletableFuture<JobStatus> gone = dispatcher.status("old");
        main.runDue();
        assertThatThrownBy(gone::join).hasRootCauseInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("no job with id 'old'");
        assertThat(dispatcher.list()).noneMatch(s -> s.getJobId().equals("old"));
        await(dispatcher.submit(DispatcherTest.wordCount("old")));
        assertThat(dispatcher.runningJobs()).as("an expired id may run again, as documented").isEqualTo(1);
    }

    @Test
    void endedJobsLeaveMemoryAndTheirResultsStayReadableFromTheStore() throws Exception {
        Configuration tiny = new Configuration().set(ClusterOptions.COLLECT_MAX_BYTES, MemorySize.ofBytes(1));
        Dispatcher dispatcher = dispatcher("s1", tiny);
        for (int i = 0; i < 3; i++) {
            await(dispatcher.submit(DispatcherTest.wordCount("job-" + i)));
            dispatcher.cancel("job-" + i);
            main.runDue();
        }
        assertThat(dispatcher.runningJobs()).isZero();
        assertThat(dispatcher.list()).extracting(JobStatus::getJobId).containsExactly("job-0", "job-1", "job-2");
        // job-0 is only a summary in memory now: its full result comes from the store.
        assertThat(await(dispatcher.result("job-0")).getStatus().getState()).isEqualTo(JobState.JOB_CANCELED);
        assertThat(status(dispatcher, "job-2").getState()).isEqualTo(JobState.JOB_CANCELED);
    }

    @Test
    void aResultWrittenLateByADeposedLeaderWinsAndThisLeaderAdoptsIt() throws Exception {
        Dispatcher dispatcher = dispatcher("s2", new Configuration());
        await(dispatcher.submit(DispatcherTest.wordCount("raced")));
        // The worst case of the check-then-write window: the earlier leader checked its leadership,
        // paused, and wrote the job's result after this leader took the job over.
        results.createDirtyResult(new io.duraflow.jobstore.JobResultEntry("raced", "WordCount",
                WordCount.class.getName(), JobOutcome.FINISHED, 0, 5, "", 0, Map.of(), Map.of(), java.util.List.of(),
                java.util.List.of()));

        dispatcher.cancel("raced");
        main.runDue();

        assertThat(results.getResult("raced").orElseThrow().state()).isEqualTo(JobOutcome.FINISHED);
        assertThat(await(dispatcher.result("raced")).getStatus().getState())
                .as("memory agrees with the store: the first durable result is the job's result")
                .isEqualTo(JobState.JOB_FINISHED);
        assertThat(dispatcher.list()).filteredOn(s -> s.getJobId().equals("raced"))
                .extracting(JobStatus::getState).containsExactly(JobState.JOB_FINISHED);
        assertThat(results.hasCleanJobResultEntry("raced")).isTrue();
    }
}
