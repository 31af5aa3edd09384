package io.duraflow.cli;

import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.RestoreSettingsData;
import io.duraflow.rpc.proto.TriggerSavepointRequest;
import io.duraflow.rpc.proto.TriggerSavepointResponse;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code duraflow savepoint JOB_ID [DIR]}: takes a savepoint of a running streaming job and
 * prints its directory; also what {@code duraflow cancel JOB_ID --savepoint [DIR]} does before
 * the job is cancelled, and how {@code run --from-savepoint} turns its options into the request.
 *
 * <p>The directory is DIR, else {@code execution.checkpointing.savepoint-dir} of the client's
 * configuration, else the JobManager's; with none of them the command fails with a line saying to
 * give one. While the savepoint runs, its id and time so far are shown.
 */
@Command(name = "savepoint", description = "Takes a savepoint of a running streaming job and prints its directory"
        + " (DIR defaults to execution.checkpointing.savepoint-dir).")
final class SavepointCommand implements Callable<Integer> {
    /** How often the progress is looked at while the savepoint runs. */
    private static final long PROGRESS_POLL_MS = 250;
    /** How long {@code cancel --savepoint} waits for the job to end CANCELED after the savepoint. */
    private static final long CANCEL_WAIT_MS = 30_000;
    private static final Pattern URI_SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+:.*");

    @CommandLine.ParentCommand
    Duraflow root;

    @Parameters(index = "0", paramLabel = "JOB_ID")
    String jobId;

    @Parameters(index = "1", arity = "0..1", paramLabel = "DIR",
            description = "Directory the savepoint is written under (a path or file system URI)")
    String directory;

    @Override
    public Integer call() throws Exception {
        return root.withClient((client, config) -> {
            take(client, config, jobId, directory, false, System.out, root);
            return 0;
        });
    }

    /**
     * Triggers the savepoint, shows its progress until it ended, and prints where it is.
     *
     * @param directory null or empty: the configured default
     * @param cancelJob also cancel the job once the savepoint completed, and wait until it ended
     * @param root the command line, for the client's connection options in the printed restore line
     * @throws CliException with the JobManager's one-line reason if it failed (then the job keeps running)
     */
    static TriggerSavepointResponse take(ClusterClient client, Configuration config, String jobId, String directory,
            boolean cancelJob, PrintStream out, Duraflow root) throws InterruptedException {
        String target = directory == null || directory.isBlank() ? config.get(CheckpointingOptions.SAVEPOINT_DIR)
                : directory;
        TriggerSavepointRequest request = TriggerSavepointRequest.newBuilder().setJobId(jobId)
                .setTargetDirectory(target == null ? "" : absolute(target)).setCancelJob(cancelJob).build();
        out.println("Triggering a savepoint of job " + jobId + (target == null ? "" : " into " + request
                .getTargetDirectory()) + (cancelJob ? ", then cancelling it" : ""));
        // Asked while the job runs: once cancelled, its checkpoints are no longer reported.
        RestoreCommandLine.JobFacts job = RestoreCommandLine.fetch(client, jobId);
        long start = System.nanoTime();
        CompletableFuture<TriggerSavepointResponse> answer = CompletableFuture.supplyAsync(
                () -> client.triggerSavepoint(request));
        long shownSeconds = -1;
        while (!answer.isDone()) {
            try {
                answer.get(PROGRESS_POLL_MS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                if (seconds > shownSeconds) {
                    shownSeconds = seconds;
                    String progress = progress(client, jobId);
                    if (progress != null) {
                        out.printf("[%6.1fs] %s%n", (System.nanoTime() - start) / 1e9, progress);
                    }
                }
            } catch (java.util.concurrent.ExecutionException e) {
                break;
            }
        }
        TriggerSavepointResponse response;
        try {
            response = answer.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof CliException cli ? cli : e;
        }
        out.printf(Locale.ROOT, "Savepoint %d of job %s completed in %.1f s (%,d bytes of state): %s%n",
                response.getCheckpointId(), jobId, (System.nanoTime() - start) / 1e9, response.getStateSizeBytes(),
                response.getPath());
        if (cancelJob) {
            out.println("Job " + jobId + " " + awaitEnd(client, jobId));
        }
        out.println("Restore it with: " + RestoreCommandLine.of(RestoreCommandLine.connectionOptions(root), job,
                response.getPath()));
        return response;
    }

    /** "savepoint 7 in progress (2 of 4 tasks ...)" from the job's checkpoints, or null if not shown yet. */
    private static String progress(ClusterClient client, String jobId) {
        try {
            for (CheckpointSummary summary : client.checkpoints(jobId).getCheckpointsList()) {
                if (summary.getKind().equals("SAVEPOINT") && summary.getStatus().equals("IN_PROGRESS")) {
                    return String.format(Locale.ROOT, "savepoint %d in progress for %.1f s",
                            summary.getCheckpointId(), summary.getDurationMs() / 1000.0);
                }
            }
        } catch (CliException e) {
            return null; // progress is a courtesy; the savepoint's own answer decides
        }
        return null;
    }

    /** Waits until the cancelled job ended; says how it ended, or that it has not yet. */
    private static String awaitEnd(ClusterClient client, String jobId) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CANCEL_WAIT_MS);
        while (true) {
            JobStatus status = client.status(jobId);
            if (JobRunner.isTerminal(status.getState())) {
                return JobRunner.stateName(status.getState());
            }
            if (System.nanoTime() > deadline) {
                return "is being cancelled (still " + JobRunner.stateName(status.getState()) + " after "
                        + CANCEL_WAIT_MS / 1000 + " s; 'duraflow status " + jobId + "' shows when it ended)";
            }
            Thread.sleep(100);
        }
    }

    /**
     * A local path as an absolute one (the JobManager runs elsewhere, in another directory); a
     * file system URI as it is.
     */
    static String absolute(String pathOrUri) {
        return URI_SCHEME.matcher(pathOrUri).matches() ? pathOrUri
                : Path.of(pathOrUri).toAbsolutePath().normalize().toString();
    }

    /**
     * What {@code run --from-savepoint PATH [--claim | --no-claim] [--allow-non-restored-state]}
     * asks for, or null without {@code --from-savepoint}.
     */
    static RestoreSettingsData restore(String path, boolean claim, boolean noClaim, boolean allowNonRestoredState) {
        if (path == null) {
            if (claim || noClaim || allowNonRestoredState) {
                throw new CliException("--claim, --no-claim and --allow-non-restored-state go with --from-savepoint"
                        + " PATH; give the savepoint or checkpoint to restore");
            }
            return null;
        }
        if (claim && noClaim) {
            throw new CliException("give --claim or --no-claim, not both (default: --no-claim)");
        }
        if (path.isBlank()) {
            throw new CliException("--from-savepoint needs a path: a savepoint directory, a retained chk-<n>"
                    + " directory or its _metadata");
        }
        return RestoreSettingsData.newBuilder().setPath(absolute(path)).setClaim(claim)
                .setAllowNonRestoredState(allowNonRestoredState).build();
    }

}
