package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.StandbyWarmUp;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobstore.CorruptStoreFileException;
import io.duraflow.jobstore.JobGraphStore;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.JobResultStore;
import io.duraflow.jobstore.SubmittedJob;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loading part of a take-over ({@link StoredJobRecovery}): reads what the stores of an
 * earlier leader hold (stored jobs without a result, DIRTY result entries, each job's event log),
 * rebuilds the stored jobs' plans, finishes the cleanup of DIRTY entries and ends as FAILED each
 * stored job that cannot be re-created. It never runs a job: that is the recovery's next step.
 *
 * <p>Threading: {@link #load} reads on the I/O executor and builds plans on the user-code
 * executor; {@link #finishCleanup} and {@link #failStoredJob} run on the main thread;
 * {@link #rehearseReads} on any thread.
 */
final class StoredJobLoader {
    private static final Logger LOG = LoggerFactory.getLogger(StoredJobLoader.class);

    private final Dispatcher.Services services;
    private final JobRegistry registry;
    private final JobFactory factory;
    private final JobCleanup cleanup;
    private final LongSupplier clock;

    StoredJobLoader(Dispatcher.Services services, JobRegistry registry, JobFactory factory, JobCleanup cleanup,
            LongSupplier clock) {
        this.services = services;
        this.registry = registry;
        this.factory = factory;
        this.cleanup = cleanup;
        this.clock = clock;
    }

    /** A stored job and its event log (empty: no log, or it could not be read). */
    record StoredJob(SubmittedJob job, List<JobEvent> events, String logProblem) {}

    /** A stored job that cannot run again, and why (the cause names the file or the class). */
    record Unrecoverable(String jobId, Optional<SubmittedJob> job, String cause) {}

    /** What the stores hold: DIRTY entries, jobs to run again, jobs whose graph cannot be read. */
    record Stored(List<JobResultEntry> dirty, List<StoredJob> toRun, List<Unrecoverable> broken) {}

    /** A stored job with its plan built, or the reason it cannot be built. */
    record Rebuilt(StoredJob stored, JobFactory.Built built, String failure) {}

    /** What the stores hold, with every stored job's plan built (or the reason it is not). */
    record Loaded(Stored stored, List<Rebuilt> rebuilt) {}

    /** Reads the stores, then builds every stored job's plan; fails only if a store cannot be listed. */
    CompletableFuture<Loaded> load() {
        return CompletableFuture.supplyAsync(this::readStores, services.io())
                .thenCompose(stored -> rebuildAll(stored.toRun()).thenApply(rebuilt -> new Loaded(stored, rebuilt)));
    }

    /** On an I/O thread: what the stores hold. Only a store that cannot be listed fails it. */
    private Stored readStores() {
        try {
            List<JobResultEntry> dirty = services.results().getDirtyResults();
            List<StoredJob> toRun = new ArrayList<>();
            List<Unrecoverable> broken = new ArrayList<>();
            for (String jobId : services.jobGraphs().jobIds()) {
                if (services.results().hasJobResultEntry(jobId)) {
                    continue;
                }
                try {
                    services.jobGraphs().get(jobId).ifPresent(job -> toRun.add(readEventLog(job)));
                } catch (CorruptStoreFileException e) {
                    broken.add(new Unrecoverable(jobId, Optional.empty(), "its stored job graph is unreadable: "
                            + e.getMessage()));
                }
            }
            return new Stored(dirty, toRun, broken);
        } catch (IOException e) {
            throw new CompletionException(e);
        }
    }

    /**
     * A standby's rehearsal of {@link #readStores}: the same reads of the job graph store, the job
     * result store and each stored job's event log, whose results are thrown away, so that the
     * code (and the JDK's, Jackson's and protobuf's) is loaded and compiled before a take-over
     * needs it. Only reads that never write: not {@code getDirtyResults}, which may delete a stale
     * file. A standby calls it while it stands by (see {@link StandbyWarmUp}); any thread.
     *
     * @param go checked before each job: false once the standby is elected
     * @return how many event logs it read
     */
    static int rehearseReads(JobResultStore results, JobGraphStore jobGraphs, JobDirectories directories,
            BooleanSupplier go) throws IOException {
        int logs = 0;
        for (String jobId : jobGraphs.jobIds()) {
            if (!go.getAsBoolean()) {
                break;
            }
            if (results.hasJobResultEntry(jobId) || jobGraphs.get(jobId).isEmpty()) {
                continue;
            }
            FsPath directory = directories.eventLogDirectory(jobId);
            if (directories.fileSystem().exists(directory)) {
                JobEventReader.readAll(directories.fileSystem(), directory);
                logs++;
            }
        }
        return logs;
    }

    /** Builds every stored job's plan on the user-code executor; a job that does not build is not an error here. */
    private CompletableFuture<List<Rebuilt>> rebuildAll(List<StoredJob> toRun) {
        List<CompletableFuture<Rebuilt>> builds = new ArrayList<>();
        for (StoredJob stored : toRun) {
            builds.add(factory.build(stored.job()).handle((built, error) -> error == null
                    ? new Rebuilt(stored, built, null)
                    : new Rebuilt(stored, null, "the stored job cannot be rebuilt: "
                            + Dispatcher.describe(error))));
        }
        return CompletableFuture.allOf(builds.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> builds.stream().map(CompletableFuture::join).toList());
    }

    /** Reads a stored job's event log on an I/O thread; a damaged log means a full restart. */
    private StoredJob readEventLog(SubmittedJob job) {
        FsPath directory = factory.eventLogDirectory(job.jobId());
        FileSystem fileSystem = factory.jobDirectories().fileSystem();
        try {
            if (!fileSystem.exists(directory)) {
                return new StoredJob(job, List.of(), "");
            }
            JobEventReader.ReadResult read = JobEventReader.readAll(fileSystem, directory);
            read.warnings().forEach(w -> LOG.warn("Job {}: {}", job.jobId(), w));
            return new StoredJob(job, read.events(), "");
        } catch (IOException e) {
            return new StoredJob(job, List.of(), e.getMessage());
        }
    }

    /** A job that ended under an earlier leader, whose entry is still DIRTY: only its cleanup is left. */
    void finishCleanup(JobResultEntry entry) {
        LOG.info("Job {} ended ({}) under an earlier leader; finishing its cleanup, not running it"
                + " again", entry.jobId(), entry.state());
        registry.rememberSummary(entry);
        cleanup.resumeCleanup(entry.jobId());
    }

    /** A stored job that cannot run again ends FAILED: a result entry, then the usual cleanup. */
    void failStoredJob(Unrecoverable broken) {
        String jobId = broken.jobId();
        if (registry.isKnown(jobId)) {
            LOG.warn("Stored job {} is already known to this leader; not failing it", jobId);
            return;
        }
        LOG.error("Stored job {} cannot be recovered and ends as FAILED: {}", jobId, broken.cause());
        SubmittedJob job = broken.job().orElse(null);
        JobResultEntry entry = new JobResultEntry(jobId, "", job == null ? "" : job.jobClass(), JobOutcome.FAILED,
                job == null ? 0 : job.submittedAtMs(), clock.getAsLong(), broken.cause(), 0,
                job == null ? Map.of() : job.params(), Map.of(), List.of(), List.of());
        cleanup.storeResultAndCleanUp(entry, CompletableFuture.completedFuture(null));
    }
}
