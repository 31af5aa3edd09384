package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.StandbyWarmUp;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;

import io.duraflow.config.JobManagerOptions;
import io.duraflow.config.JobRecoveryOptions;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.dispatcher.StoredJobLoader.Rebuilt;
import io.duraflow.jobmanager.dispatcher.StoredJobLoader.StoredJob;
import io.duraflow.jobmanager.dispatcher.StoredJobLoader.Unrecoverable;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobstore.JobGraphStore;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.JobResultStore;
import io.duraflow.jobstore.SubmittedJob;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes over the jobs of an earlier leader in two phases, {@link #recover()} before this leader is
 * published and {@link #startRecoveredJobs()} after, over {@link StoredJobLoader}, {@code
 * BatchRecoveryWait} and {@code StreamingTakeover}. Main thread, except the loader's reads and plan
 * building. See docs/design/batch-recovery.md#storedjobrecovery.
 */
public final class StoredJobRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(StoredJobRecovery.class);

    private final JobRegistry registry;
    private final JobFactory factory;
    private final Mailbox mainThread;
    private final LongSupplier clock;
    /** True once the dispatcher's leadership ended. */
    private final BooleanSupplier closed;
    private final StoredJobLoader loader;
    private final BatchRecoveryWait batch;
    private final StreamingTakeover streaming;
    private final KeptTasks keptTasks;
    private final ResourceManager resourceManager;
    /** Whether TaskManagers keep their tasks for a new leader ({@code taskmanager.leader-loss.timeout} > 0). */
    private final boolean adoptionOn;
    private Mailbox.Cancellable recoveryCheck;
    /** Set once this leader is published: from then on recovered jobs may plan. */
    private boolean started;
    /** The jobs this leader took over from stored job graphs (for the metrics' recovery figures). */
    private final Set<String> recovered = new HashSet<>();

    /** When this leader was elected; main thread. */
    private long electedAtMs;

    StoredJobRecovery(Dispatcher.Services services, JobRegistry registry, JobFactory factory, JobCleanup cleanup,
            ResourceManager resourceManager, Mailbox mainThread, LongSupplier clock,
            BooleanSupplier closed, boolean adoptionOn) {
        this.adoptionOn = adoptionOn;
        this.registry = registry;
        this.factory = factory;
        this.resourceManager = resourceManager;
        this.mainThread = mainThread;
        this.clock = clock;
        this.closed = closed;
        this.loader = new StoredJobLoader(services, registry, factory, cleanup, clock);
        this.keptTasks = new KeptTasks(resourceManager);
        this.batch = new BatchRecoveryWait(services, registry, factory, resourceManager, keptTasks, mainThread, clock,
                closed);
        this.streaming = new StreamingTakeover(resourceManager, keptTasks);
    }

    // ------------------------------------------------------------------ phase one

    CompletableFuture<Void> recover(long electedAtMs) {
        this.electedAtMs = electedAtMs;
        return loader.load().thenComposeAsync(found -> {
            if (closed.getAsBoolean()) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            List<CompletableFuture<Void>> prepared = new ArrayList<>();
            for (JobResultEntry entry : found.stored().dirty()) {
                loader.finishCleanup(entry);
            }
            for (Unrecoverable broken : found.stored().broken()) {
                loader.failStoredJob(broken);
            }
            for (Rebuilt rebuilt : found.rebuilt()) {
                if (rebuilt.built() == null) {
                    loader.failStoredJob(new Unrecoverable(rebuilt.stored().job().jobId(),
                            Optional.of(rebuilt.stored().job()), rebuilt.failure()));
                } else {
                    prepared.add(recoverJob(rebuilt.stored(), rebuilt.built()));
                }
            }
            // Phase one ends once every recovered job started its sources (or failed to).
            return CompletableFuture.allOf(prepared.toArray(CompletableFuture[]::new));
        }, mainThread);
    }

    /**
     * A standby's rehearsal of the reads a take-over starts with; see {@link
     * StoredJobLoader#rehearseReads} and {@link StandbyWarmUp}. Any thread.
     *
     * @param go checked before each job: false once the standby is elected
     * @return how many event logs it read
     */
    public static int rehearseReads(JobResultStore results, JobGraphStore jobGraphs, JobDirectories directories,
            BooleanSupplier go) throws IOException {
        return StoredJobLoader.rehearseReads(results, jobGraphs, directories, go);
    }

    /** Re-creates a stored job and starts its sources off the main thread; completes on the main thread. */
    private CompletableFuture<Void> recoverJob(StoredJob stored, JobFactory.Built built) {
        SubmittedJob submitted = stored.job();
        if (registry.isKnown(submitted.jobId())) {
            // Requests are turned away until recovery is done, so this cannot happen; never run a job twice.
            LOG.warn("Stored job {} is already known to this leader; not recovering it again", submitted.jobId());
            return CompletableFuture.completedFuture(null);
        }
        JobFactory.Created created = factory.create(built);
        JobMaster job = created.job();
        job.recoveredByLeaderElectedAt(electedAtMs);
        registry.add(job, created.writer(), submitted);
        recovered.add(submitted.jobId());
        return factory.prepare(job, built)
                .handle((ignored, error) -> {
                    if (closed.getAsBoolean()) {
                        return null;
                    }
                    if (error != null) {
                        job.failBeforeStart("the recovered job cannot start: " + Dispatcher.describe(error));
                    } else {
                        resume(job, stored, built);
                    }
                    return null;
                });
    }

    /** A recovered job whose sources started: it waits for its TaskManagers, or runs from the start. */
    private void resume(JobMaster job, StoredJob stored, JobFactory.Built built) {
        SubmittedJob submitted = stored.job();
        if (built.graph().mode() == RuntimeMode.STREAMING) {
            if (!adoptionOn) {
                // Not the batch recovery planner: the job restores its latest completed checkpoint as it starts.
                LOG.info("Recovering streaming job {} ({}) from its latest completed checkpoint", submitted.jobId(),
                        submitted.jobClass());
                job.start();
                return;
            }
            long waitMs = built.config().get(JobManagerOptions.ADOPTION_REPORT_TIMEOUT).toMillis();
            LOG.info("Recovering streaming job {} ({}): waiting up to {} ms for its TaskManagers to report the tasks"
                    + " they kept", submitted.jobId(), submitted.jobClass(), waitMs);
            streaming.await(job, waitMs, started ? clock.getAsLong() + waitMs : Long.MAX_VALUE);
            checkPendingRecoveries();
            return;
        }
        boolean recoverable = !stored.events().isEmpty() && registry.eventWriter(submitted.jobId()) != null;
        if (!recoverable) {
            String why = !stored.logProblem().isEmpty() ? "its event log is damaged (" + stored.logProblem() + ")"
                    : "it has no job event log";
            LOG.info("Recovering job {} ({}): it runs again from the start, as {}", submitted.jobId(),
                    submitted.jobClass(), why);
            batch.restartFromScratch(job, why);
            return;
        }
        long waitMs = built.config().get(JobRecoveryOptions.PREVIOUS_WORKER_RECOVERY_TIMEOUT).toMillis();
        LOG.info("Recovering job {} from {} events; waiting up to {} ms for the TaskManagers holding its output",
                submitted.jobId(), stored.events().size(), waitMs);
        batch.await(job, built, stored.events(), waitMs);
    }

    // ------------------------------------------------------------------ phase two

    /** Whether this leader took the job over from an earlier one (its stored job graph). */
    boolean recovered(String jobId) {
        return recovered.contains(jobId);
    }

    void startRecoveredJobs() {
        started = true;
        long now = clock.getAsLong();
        batch.start(now);
        streaming.start(now);
        checkPendingRecoveries();
    }

    void checkPendingRecoveries() {
        if (closed.getAsBoolean() || (batch.isEmpty() && streaming.isEmpty()) || !started) {
            return;
        }
        long now = clock.getAsLong();
        streaming.check(now);
        batch.check(now);
        if ((!batch.isEmpty() || !streaming.isEmpty()) && recoveryCheck == null) {
            recoveryCheck = mainThread.schedule(() -> {
                recoveryCheck = null;
                checkPendingRecoveries();
            }, 100);
        }
    }

    /** Whether the job waits for its TaskManagers before it resumes (its kept tasks are not strays then). */
    boolean isPending(String jobId) {
        return batch.isWaiting(jobId) || streaming.isWaiting(jobId);
    }

    /** The job was cancelled while it waited for its TaskManagers: it never resumes. */
    boolean cancelPending(String jobId) {
        if (streaming.remove(jobId)) {
            keptTasks.cancelKeptTasks(jobId);
            return true;
        }
        return batch.cancel(jobId);
    }

    /** See {@link BatchRecoveryWait#takeEarlierFinishes}. */
    CompletableFuture<Void> takeEarlierFinishes(String session, String tmId, String tmAddress,
            List<TaskStateUpdate> reports) {
        return batch.takeEarlierFinishes(session, tmId, tmAddress, reports);
    }

    /** A TaskManager came back with partitions: those of jobs nobody recovers are released. */
    void taskManagerRegistered(String tmId, List<HeldPartition> held) {
        for (AttemptId attempt : resourceManager.heldTasksOn(tmId)) {
            if (!isPending(attempt.getJobId())) {
                LOG.info("TaskManager {} kept {} running, which no recovering job here can adopt; cancelling it", tmId,
                        Rpc.describe(attempt));
                resourceManager.cancelHeld(tmId, attempt);
            }
        }
        Set<String> releaseJobs = new HashSet<>();
        for (HeldPartition partition : held) {
            if (!batch.isWaiting(partition.getJobId())) {
                releaseJobs.add(partition.getJobId());
            }
        }
        for (String jobId : releaseJobs) {
            resourceManager.releaseKeptPartitions(tmId, jobId, List.of());
        }
        checkPendingRecoveries();
    }
}
