package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobstore.JobIds;
import io.duraflow.jobstore.JobJarRef;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.RestoreSettings;
import io.duraflow.jobstore.SubmittedJob;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.duraflow.util.Futures;
import io.duraflow.mailbox.Mailbox;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
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
 *
 * <p>A client that got no answer it could use (a failover: the old leader died or lost its
 * leadership mid-submission, perhaps after it stored the job graph, which the next leader then
 * runs) sends the same submission again, marked as a resubmission. If a job of that id runs, or
 * is being submitted, with the same submission, it is the client's own: the answer is that job
 * (or the answer to the submission in progress), not "already running". Any other submission of
 * a known id is refused.
 */
final class JobSubmissions {
    private static final Logger LOG = LoggerFactory.getLogger(JobSubmissions.class);

    private final Dispatcher.Services services;
    private final JobRegistry registry;
    private final JobFactory factory;
    private final Mailbox mainThread;
    private final LongSupplier clock;
    private final Runnable requireLeadership;
    /** True once the dispatcher's leadership ended. */
    private final BooleanSupplier closed;
    /** Submissions in progress, by job id: what was submitted and the answer it gets. */
    private final Map<String, InFlight> inFlight = new HashMap<>();

    private record InFlight(SubmittedJob job, CompletableFuture<SubmitJobResponse> response) {}

    JobSubmissions(Dispatcher.Services services, JobRegistry registry, JobFactory factory, Mailbox mainThread,
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
        return submit(request, null);
    }

    /**
     * As {@link #submit(SubmitJobRequest)}, for a job submitted from its jar: {@code upload} is the
     * jar as received, checked against the request's artifact hash. It is stored in the job's
     * directory before the plan is built; a submission that is not accepted leaves nothing stored
     * (unless its job graph was stored, which the next leader then runs from that jar).
     */
    CompletableFuture<SubmitJobResponse> submit(SubmitJobRequest request, java.nio.file.Path upload) {
        String jobId = request.getJobId().isEmpty() ? UUID.randomUUID().toString().replace("-", "").substring(0, 16)
                : request.getJobId();
        if (!JobIds.isValid(jobId)) {
            throw Status.INVALID_ARGUMENT.withDescription("invalid job id '" + jobId
                    + "': use 1-64 letters, digits, '.', '_' or '-'").asRuntimeException();
        }
        if (request.getResubmission()) {
            Optional<CompletableFuture<SubmitJobResponse>> own = ownEarlierSubmission(record(jobId, request));
            if (own.isPresent()) {
                return own.get();
            }
        }
        rejectKnown(jobId);
        SubmittedJob record = record(jobId, request);
        if (record.jar() != null && upload == null) {
            throw Status.INVALID_ARGUMENT.withDescription("job " + jobId + " names jar " + record.jar().fileName()
                    + " but its bytes were not sent: submit it with SubmitJar").asRuntimeException();
        }
        registry.startSubmission(jobId);
        boolean[] graphStored = {false};
        // An invalid configuration fails build() with INVALID_ARGUMENT like a plan that does not build.
        CompletableFuture<SubmitJobResponse> response = storeJar(record, upload)
                .thenCompose(stored -> factory.buildForSubmission(record))
                .thenComposeAsync(this::prepare, mainThread)
                .thenComposeAsync(created -> storeAndStart(record, created, graphStored), mainThread)
                .whenCompleteAsync((ignored, error) -> {
                    registry.endSubmission(jobId);
                    inFlight.remove(jobId);
                    if (error != null && record.jar() != null && !graphStored[0]) {
                        services.io().execute(() -> factory.jars().discard(jobId, record.jar()));
                    }
                }, mainThread);
        inFlight.put(jobId, new InFlight(record, response));
        return response;
    }

    private SubmittedJob record(String jobId, SubmitJobRequest request) {
        JobJarRef jar = null;
        if (request.hasArtifact()) {
            try {
                jar = new JobJarRef(request.getArtifact().getSha256(), request.getArtifact().getFileName(),
                        request.getArtifact().getSize());
            } catch (IllegalArgumentException e) {
                throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
            }
        }
        return new SubmittedJob(jobId, request.getJobClass(), request.getParamsMap(), request.getConfigMap(),
                Math.max(0, request.getParallelism()), clock.getAsLong(), restore(request), jar);
    }

    /** On an I/O thread: the job's jar into its directory in the HA storage, before anything else happens. */
    private CompletableFuture<Void> storeJar(SubmittedJob record, java.nio.file.Path upload) {
        if (record.jar() == null) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.runAsync(() -> {
            try {
                requireLeadership.run();
                factory.jars().store(record.jobId(), record.jar(), upload);
            } catch (IOException e) {
                throw new CompletionException(Status.UNAVAILABLE.withDescription("cannot store jar "
                        + record.jar().fileName() + " of job " + record.jobId() + ": " + Dispatcher.describe(e))
                        .asRuntimeException());
            }
        }, services.io());
    }

    /**
     * A resubmission's answer if the job it submits is known with the same submission: the answer
     * to that submission if it is in progress, else the running job's id and plan fingerprint.
     */
    private Optional<CompletableFuture<SubmitJobResponse>> ownEarlierSubmission(SubmittedJob resent) {
        String jobId = resent.jobId();
        InFlight pending = inFlight.get(jobId);
        if (pending != null && pending.job().sameSubmissionAs(resent)) {
            LOG.info("Job {} submitted again by a client that got no answer: it gets the answer to the same"
                    + " submission in progress", jobId);
            return Optional.of(pending.response());
        }
        JobMaster running = registry.job(jobId);
        SubmittedJob submitted = registry.submission(jobId);
        if (running != null && !running.isTerminal() && submitted != null && submitted.sameSubmissionAs(resent)) {
            LOG.info("Job {} submitted again by a client that got no answer: the job runs with the same submission,"
                    + " so the answer is that job", jobId);
            return Optional.of(CompletableFuture.completedFuture(SubmitJobResponse.newBuilder().setJobId(jobId)
                    .setFingerprint(running.graph().fingerprint()).build()));
        }
        return Optional.empty();
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

    private CompletableFuture<SubmitJobResponse> storeAndStart(SubmittedJob record, JobFactory.Created created,
            boolean[] graphStored) {
        return CompletableFuture.supplyAsync(() -> storeJobGraph(record, graphStored), services.io())
                .handleAsync((existing, error) -> start(record, created, existing, error), mainThread);
    }

    /** On an I/O thread: the job graph is stored unless the id has a result already. */
    private Optional<JobResultEntry> storeJobGraph(SubmittedJob record, boolean[] graphStored) {
        try {
            requireLeadership.run();
            Optional<JobResultEntry> existing = services.results().getResult(record.jobId());
            if (existing.isEmpty()) {
                requireLeadership.run();
                graphStored[0] = true;  // before the write: a write that fails half way may have stored it
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
        registry.add(job, created.writer(), record);
        job.start();
        LOG.info("Job {} submitted: {}{} {}{}", jobId, record.jobClass(),
                record.jar() == null ? "" : " from " + record.jar().fileName() + " (" + record.jar().sha256() + ")",
                record.params(), record.restore() == null ? "" : ", restoring " + record.restore());
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
