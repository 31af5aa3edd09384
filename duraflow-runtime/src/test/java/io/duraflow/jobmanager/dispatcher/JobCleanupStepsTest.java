package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.checkpoint.CheckpointIdCounter;
import io.duraflow.config.Configuration;
import io.duraflow.jobstore.CleanupRetryPolicy;
import io.duraflow.jobstore.InMemoryJobGraphStore;
import io.duraflow.jobstore.InMemoryJobResultStore;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cleanup steps of a terminated job that must succeed before its entry becomes CLEAN: the
 * checkpoint id counter is discarded (only once the result is stored), and every registered
 * TaskManager confirms the release of the job's partitions; a failure of either keeps the entry
 * DIRTY and is retried per the cleanup strategy. A manual main thread and clock, in-memory stores,
 * store I/O inline, a fake TaskManager transport.
 */
class JobCleanupStepsTest {
    private static final long HEARTBEAT_TIMEOUT_MS = 10_000;

    @TempDir
    Path tempDir;

    private final ManualMailbox main = new ManualMailbox();
    private final InMemoryJobResultStore results = new InMemoryJobResultStore();
    private final InMemoryJobGraphStore jobGraphs = new InMemoryJobGraphStore();
    private final RecordingGateways gateways = new RecordingGateways(main);
    private final ResourceManager resourceManager = new ResourceManager(main, main::now, HEARTBEAT_TIMEOUT_MS,
            gateways);
    private final Counters counters = new Counters();

    /** What a discard of a job's counter saw, and whether it succeeded. */
    record Discard(String jobId, boolean resultStored, boolean failed) {}

    /** Checkpoint id counters whose discard fails the first {@code failures} times; records every discard. */
    final class Counters {
        int failures;
        final List<Discard> discards = new ArrayList<>();

        CheckpointIdCounter counter(String jobId) {
            return new CheckpointIdCounter() {
                @Override
                public long getAndIncrement() {
                    return 1;
                }

                @Override
                public long get() {
                    return 1;
                }

                @Override
                public void continueFrom(long nextId) {
                }

                @Override
                public void discard() throws Exception {
                    boolean fail = failures > 0;
                    discards.add(new Discard(jobId, results.hasJobResultEntry(jobId), fail));
                    if (fail) {
                        failures--;
                        throw new java.io.IOException("ZooKeeper unavailable (injected)");
                    }
                }
            };
        }
    }

    private Dispatcher dispatcher(String session, CleanupRetryPolicy policy) {
        Dispatcher.Services services = new Dispatcher.Services(results, jobGraphs,
                JobDirectories.local(tempDir.resolve("jobs")), policy, Runnable::run, Runnable::run, () -> { },
                s -> true, counters::counter);
        return new Dispatcher(new Configuration(), session, resourceManager, main, main::now, services);
    }

    private static CleanupRetryPolicy everySecond() {
        return CleanupRetryPolicy.fixedDelay(Duration.ofSeconds(1), 0);
    }

    private void submitAndCancel(Dispatcher dispatcher, String jobId) {
        CompletableFuture<?> submitted = dispatcher.submit(DispatcherTest.wordCount(jobId));
        main.runDue();
        assertThat(submitted).isCompleted();
        dispatcher.cancel(jobId);
        main.runDue();
    }

    /** TaskManagers without slots: nothing is deployed to them, but they hold partitions to release. */
    private void registerTaskManagers(String... tmIds) {
        for (int i = 0; i < tmIds.length; i++) {
            resourceManager.register(tmIds[i], "127.0.0.1:" + (7001 + i), 0);
        }
    }

    // ------------------------------------------------------------ checkpoint id counter

    @Test
    void theCheckpointIdCounterIsDiscardedOnceTheResultIsStoredAndBeforeTheEntryIsClean() {
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none());

        submitAndCancel(dispatcher, "job-1");

        assertThat(counters.discards).containsExactly(new Discard("job-1", true, false));
        assertThat(results.hasCleanJobResultEntry("job-1")).isTrue();
        assertThat(dispatcher.cleanupState("job-1")).isEqualTo(new CleanupState.Done());
    }

    @Test
    void aFailedDiscardKeepsTheEntryDirtyAndIsRetriedUntilItSucceeds() {
        counters.failures = 2;
        Dispatcher dispatcher = dispatcher("s1", everySecond());

        submitAndCancel(dispatcher, "job-1");

        assertThat(results.hasDirtyJobResultEntry("job-1")).isTrue();
        assertThat(dispatcher.cleanupState("job-1")).isInstanceOf(CleanupState.Retrying.class)
                .extracting(state -> ((CleanupState.Retrying) state).cause()).asString()
                .contains("ZooKeeper unavailable");
        main.advance(1_000);
        assertThat(counters.discards).hasSize(2);
        assertThat(results.hasDirtyJobResultEntry("job-1")).as("second attempt failed too").isTrue();
        main.advance(1_000);

        assertThat(counters.discards).extracting(Discard::failed).containsExactly(true, true, false);
        assertThat(results.hasCleanJobResultEntry("job-1")).isTrue();
        assertThat(dispatcher.cleanupState("job-1")).isEqualTo(new CleanupState.Done());
    }

    @Test
    void aFailedDiscardLeftByAnEarlierLeaderIsDoneByTheNext() throws Exception {
        counters.failures = 1;
        Dispatcher first = dispatcher("s1", CleanupRetryPolicy.none());
        submitAndCancel(first, "job-1");
        assertThat(first.cleanupState("job-1")).isInstanceOf(CleanupState.GaveUp.class);
        first.close();

        Dispatcher second = dispatcher("s2", CleanupRetryPolicy.none());
        CompletableFuture<?> recovered = second.recover();
        main.runDue();
        assertThat(recovered).isCompleted();

        assertThat(counters.discards).extracting(Discard::failed).containsExactly(true, false);
        assertThat(results.hasCleanJobResultEntry("job-1")).isTrue();
    }

    @Test
    void aJobThatIsRecoveredKeepsItsCounter() {
        Dispatcher first = dispatcher("s1", CleanupRetryPolicy.none());
        CompletableFuture<?> submitted = first.submit(DispatcherTest.wordCount("job-1"));
        main.runDue();
        assertThat(submitted).isCompleted();
        first.close();

        Dispatcher second = dispatcher("s2", CleanupRetryPolicy.none());
        CompletableFuture<?> recovered = second.recover();
        main.runDue();

        assertThat(recovered).isCompleted();
        assertThat(second.runningJobs()).isEqualTo(1);
        assertThat(counters.discards).isEmpty();
    }

    // ------------------------------------------------------------ partition release

    @Test
    void theEntryStaysDirtyUntilEveryTaskManagerConfirmsTheRelease() {
        registerTaskManagers("tm-1", "tm-2");
        gateways.failNextReleases(3, Status.DEADLINE_EXCEEDED.withDescription("no answer (injected)")
                .asRuntimeException());
        Dispatcher dispatcher = dispatcher("s1", everySecond());

        submitAndCancel(dispatcher, "job-1");

        assertThat(gateways.acknowledgedReleases()).containsExactly(new RecordingGateways.Release("tm-1", "job-1", List.of()),
                new RecordingGateways.Release("tm-2", "job-1", List.of()));
        assertThat(results.hasDirtyJobResultEntry("job-1")).as("neither release was confirmed").isTrue();
        assertThat(dispatcher.cleanupState("job-1")).isInstanceOf(CleanupState.Retrying.class)
                .extracting(state -> ((CleanupState.Retrying) state).cause()).asString()
                .contains("did not confirm the release of job job-1's partitions");
        main.advance(1_000);
        assertThat(gateways.acknowledgedReleases()).hasSize(4);
        assertThat(results.hasDirtyJobResultEntry("job-1")).as("tm-1's second release failed").isTrue();
        assertThat(dispatcher.cleanupState("job-1")).isInstanceOf(CleanupState.Retrying.class)
                .extracting(state -> ((CleanupState.Retrying) state).failedAttempt()).isEqualTo(2);

        main.advance(1_000);

        assertThat(gateways.acknowledgedReleases()).hasSize(6);
        assertThat(results.hasCleanJobResultEntry("job-1")).isTrue();
        assertThat(dispatcher.cleanupState("job-1")).isEqualTo(new CleanupState.Done());
        main.advance(10_000);
        assertThat(gateways.acknowledgedReleases()).as("nothing is released after the job is clean").hasSize(6);
    }

    @Test
    void withStrategyNoneAnUnconfirmedReleaseLeavesTheEntryDirty() {
        registerTaskManagers("tm-1");
        gateways.failNextReleases(1, Status.INTERNAL.withDescription("could not delete (injected)")
                .asRuntimeException());
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none());

        submitAndCancel(dispatcher, "job-1");

        assertThat(results.hasDirtyJobResultEntry("job-1")).isTrue();
        assertThat(dispatcher.cleanupState("job-1")).isInstanceOf(CleanupState.GaveUp.class);
    }

    @Test
    void aTaskManagerThatIsGoneCountsAsReleased() {
        registerTaskManagers("tm-1", "tm-2");
        gateways.failReleasesTo("tm-2", Status.UNAVAILABLE.withDescription("connection refused (injected)")
                .asRuntimeException());
        Dispatcher dispatcher = dispatcher("s1", everySecond());

        submitAndCancel(dispatcher, "job-1");
        assertThat(results.hasDirtyJobResultEntry("job-1")).isTrue();

        // tm-2's heartbeats stop: it is lost, and its partitions with it.
        main.advance(HEARTBEAT_TIMEOUT_MS / 2);
        resourceManager.heartbeat(TaskManagerHeartbeat.newBuilder().setTmId("tm-1").build());
        main.advance(HEARTBEAT_TIMEOUT_MS / 2 + 1);
        resourceManager.checkHeartbeats();
        assertThat(resourceManager.taskManagers()).containsExactly("tm-1");
        main.advance(HEARTBEAT_TIMEOUT_MS);

        assertThat(results.hasCleanJobResultEntry("job-1")).isTrue();
        assertThat(dispatcher.cleanupState("job-1")).isEqualTo(new CleanupState.Done());
    }

    @Test
    void withoutTaskManagersThereIsNothingToRelease() {
        Dispatcher dispatcher = dispatcher("s1", CleanupRetryPolicy.none());

        submitAndCancel(dispatcher, "job-1");

        assertThat(gateways.acknowledgedReleases()).isEmpty();
        assertThat(results.hasCleanJobResultEntry("job-1")).isTrue();
    }
}
