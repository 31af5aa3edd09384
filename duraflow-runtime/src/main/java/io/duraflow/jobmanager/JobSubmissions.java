package io.duraflow.jobmanager;

import io.duraflow.jobmanager.scheduler.JobMaster;
import io.duraflow.jobstore.JobIds;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.RestoreSettings;
import io.duraflow.jobstore.SubmittedJob;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.duraflow.util.Futures;
import io.duraflow.util.MainThreadExecutor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts a job: its id must have no result, its plan must build (off the main thread, see
 * {@link JobFactory#build}) and its sources must start; then its job graph is stored, and only
 * then does it run. An id with a result is answered with that result's outcome, never run again.
 */
final class JobSubmissions {
    private static final Logger LOG = LoggerFactory.getLogger(JobSubmissions.class);

    private final Dispatcher.Services services;
    private final JobRegistry registry;
    private final JobFactory factory;
    private final MainThreadExecutor mainThread;
    private final LongSupplier clock;
    private final Runnable requireLeadership;
    /** True once the dispatcher's leadership ended. */
    private final BooleanSupplier closed;

    JobSubmissions(Dispatcher.Services services, JobRegistry registry, JobFactory factory, MainThreadExecutor mainThread,
            LongSupplier clock, Runnable requireLeadership, BooleanSupplier closed) {
        this.services = services;
        this.registry = registry;
        this.factory = factory;
        this.mainThread = mainThread;
        this.clock = clock;
        this.requireLeadership = requireLeadership;
        this.closed = closed;
    }

    /** Main thread. Completes on the main thread once the job runs, or with a gRPC status error. */
    CompletableFuture<SubmitJobResponse> submit(SubmitJobRequest request) {
        String jobId = request.getJobId().isEmpty() ? UUID.randomUUID().toString().replace("-", "").substring(0, 16)
                : request.getJobId();
        if (!JobIds.isValid(jobId)) {
            throw Status.INVALID_ARGUMENT.withDescription("invalid job id '" + jobId
                    + "': use 1-64 letters, digits, '.', '_' or '-'").asRuntimeException();
        }
        rejectKnown(jobId);
        SubmittedJob record = new SubmittedJob(jobId, request.getJobClass(), request.getParamsMap(),
                request.getConfigMap(), Math.max(0, request.getParallelism()), clock.getAsLong(), restore(request));
        registry.startSubmission(jobId);
        // An invalid configuration fails build() with INVALID_ARGUMENT like a plan that does not build.
        return factory.buildForSubmission(record)
                .thenComposeAsync(this::prepare, mainThread)
                .thenComposeAsync(created -> storeAndStart(record, created), mainThread)
                .whenCompleteAsync((response, error) -> registry.endSubmission(jobId), mainThread);
    }

    /** What the job restores ({@code run --from-savepoint}), stored with it; null: empty state. */
    private static RestoreSettings restore(SubmitJobRequest request) {
        if (!request.hasRestore()) {
            return null;
        }
        if (request.getRestore().getPath().isBlank()) {
            throw Status.INVALID_ARGUMENT.withDescription("empty savepoint path: give a savepoint directory, a"
                    + " retained chk-<n> directory or its _metadata").asRuntimeException();
        }
        return new RestoreSettings(request.getRestore().getPath(), request.getRestore().getClaim()
                ? RestoreSettings.Mode.CLAIM : RestoreSettings.Mode.NO_CLAIM,
                request.getRestore().getAllowNonRestoredState());
    }

    /** Creates the job master and starts its sources (they list their input: the job's own code, off the main thread). */
    private CompletableFuture<JobFactory.Created> prepare(JobFactory.Built built) {
        JobFactory.Created created = factory.create(built);
        return factory.prepare(created.job(), built)
                .handle((ignored, error) -> {
                    if (error != null) {
                        discard(created);
                        throw Status.INVALID_ARGUMENT.withDescription("job " + built.job().jobId() + " cannot start: "
                                + Dispatcher.describe(error)).asRuntimeException();
                    }
                    return created;
                });
    }

    private CompletableFuture<SubmitJobResponse> storeAndStart(SubmittedJob record, JobFactory.Created created) {
        return CompletableFuture.supplyAsync(() -> storeJobGraph(record), services.io())
                .handleAsync((existing, error) -> start(record, created, existing, error), mainThread);
    }

    /** On an I/O thread: the job graph is stored unless the id has a result already. */
    private Optional<JobResultEntry> storeJobGraph(SubmittedJob record) {
        try {
            requireLeadership.run();
            Optional<JobResultEntry> existing = services.results().getResult(record.jobId());
            if (existing.isEmpty()) {
                requireLeadership.run();
                services.jobGraphs().put(record);
            }
            return existing;
        } catch (IOException e) {
            throw new CompletionException(Status.UNAVAILABLE.withDescription("cannot store job " + record.jobId()
                    + ": " + Dispatcher.describe(e)).asRuntimeException());
        }
    }

    private SubmitJobResponse start(SubmittedJob record, JobFactory.Created created,
            Optional<JobResultEntry> existing, Throwable error) {
        String jobId = record.jobId();
        if (error != null) {
            discard(created);
            Throwable cause = Futures.unwrap(error);
            throw cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
        }
        if (existing.isPresent()) {
            discard(created);
            registry.rememberSummary(existing.get());
            throw alreadyEnded(jobId, existing.get().state().name(), existing.get().endedAtMs());
        }
        if (closed.getAsBoolean()) {
            discard(created);
            throw Status.UNAVAILABLE.withDescription("this JobManager lost its leadership; submit again")
                    .asRuntimeException();
        }
        JobMaster job = created.job();
        registry.add(job, created.writer());
        job.start();
        LOG.info("Job {} submitted: {} {}{}", jobId, record.jobClass(), record.params(),
                record.restore() == null ? "" : ", restoring " + record.restore());
        return SubmitJobResponse.newBuilder().setJobId(jobId).setFingerprint(job.graph().fingerprint()).build();
    }

    /** A job master that will not run: stop it and drop its event log. */
    private static void discard(JobFactory.Created created) {
        created.job().suspend();
        if (created.writer() != null) {
            created.writer().abandon();
        }
    }

    private void rejectKnown(String jobId) {
        if (registry.isBeingSubmitted(jobId)) {
            throw Status.ALREADY_EXISTS.withDescription("job " + jobId + " is being submitted right now")
                    .asRuntimeException();
        }
        Optional<JobResultEntry> result = registry.result(jobId);
        if (result.isPresent()) {
            throw alreadyEnded(jobId, result.get().state().name(), result.get().endedAtMs());
        }
        JobMaster existing = registry.job(jobId);
        if (existing != null) {
            if (existing.isTerminal()) {
                JobStatus status = existing.status();
                throw alreadyEnded(jobId, Dispatcher.stateName(status.getState()), status.getEndedAtMs());
            }
            throw Status.ALREADY_EXISTS.withDescription("job " + jobId + " is already running; see 'duraflow status "
                    + jobId + "'").asRuntimeException();
        }
    }

    static StatusRuntimeException alreadyEnded(String jobId, String state, long endedAtMs) {
        return Status.ALREADY_EXISTS.withDescription("job " + jobId + " already ended as " + state
                + (endedAtMs > 0 ? " at " + Instant.ofEpochMilli(endedAtMs) : "")
                + "; it is not run again (see 'duraflow result " + jobId + "')").asRuntimeException();
    }
}
