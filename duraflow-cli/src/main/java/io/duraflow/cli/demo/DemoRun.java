package io.duraflow.cli.demo;

import io.duraflow.cli.CliException;
import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.TaskRuns;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A demo's running job, polled every {@link #POLL_MS}: its status and whatever else the demo
 * watches (its {@link Watch}), until a condition holds. A job that ends first, or a timeout, ends
 * the demo with a one-line error that points to the logs.
 */
final class DemoRun {
    static final long POLL_MS = 20;
    /** How far into a checkpoint {@link #awaitCheckpointInProgress} takes it. */
    static final long EARLY_IN_CHECKPOINT_MS = 40;

    /** What a demo reads besides the job's status at every poll (checkpoints, ...). */
    interface Watch {
        void poll() throws IOException;
    }

    private final ClusterClient client;
    private final String jobId;
    private final Path logDirectory;
    /** Completes "the job ended ... before X": what to change for a slower job. */
    private final String slowerJobHint;
    private final Watch watch;

    DemoRun(ClusterClient client, String jobId, Path logDirectory, String slowerJobHint, Watch watch) {
        this.client = client;
        this.jobId = jobId;
        this.logDirectory = logDirectory;
        this.slowerJobHint = slowerJobHint;
        this.watch = watch;
    }

    JobStatus poll() throws IOException {
        JobStatus status = client.status(jobId);
        watch.poll();
        return status;
    }

    /** Polls until {@code condition} holds; a job that ends first, or a timeout, ends the demo. */
    JobStatus await(String what, Predicate<JobStatus> condition, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JobStatus status = poll();
            if (condition.test(status)) {
                return status;
            }
            if (JobRunner.isTerminal(status.getState())) {
                throw new CliException("the job ended as " + JobRunner.stateName(status.getState()) + " before "
                        + what + (status.getFailure().isEmpty() ? "" : " (" + status.getFailure() + ")")
                        + "; " + slowerJobHint + "; logs in " + logDirectory);
            }
            if (System.nanoTime() > deadline) {
                throw new CliException("no " + what + " within " + timeout.toSeconds() + " s; see the logs in "
                        + logDirectory);
            }
            Thread.sleep(POLL_MS);
        }
    }

    /**
     * Waits for a checkpoint in progress, at most {@link #EARLY_IN_CHECKPOINT_MS} after its trigger,
     * and returns it, so that a crash can strike inside a checkpoint and not just as it completes.
     * Checkpoints take tens of milliseconds of each interval: it sleeps until shortly before the next
     * trigger is due (the last one's time plus the interval; the JobManager runs on this machine's
     * clock), then asks every millisecond. A job that ends first, or a timeout, ends the demo.
     */
    CheckpointSummary awaitCheckpointInProgress(String what, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JobCheckpoints report = client.checkpoints(jobId);
            int count = report.getCheckpointsCount();
            CheckpointSummary last = count == 0 ? null : report.getCheckpoints(count - 1);
            if (last != null && last.getStatus().equals("IN_PROGRESS")
                    && last.getDurationMs() <= EARLY_IN_CHECKPOINT_MS) {
                return last;
            }
            if (System.nanoTime() > deadline) {
                poll(); // ends the demo with the job's failure if it ended
                throw new CliException("no checkpoint in progress for " + what + " within " + timeout.toSeconds()
                        + " s; see the logs in " + logDirectory);
            }
            long untilNextTrigger = last == null || report.getIntervalMs() == 0 ? 0
                    : last.getTriggerMs() + report.getIntervalMs() - System.currentTimeMillis();
            Thread.sleep(Math.max(1, Math.min(untilNextTrigger - 20, 200)));
        }
    }

    /**
     * Waits until every subtask of {@code before} runs, in a higher attempt if {@code newerAttempts};
     * returns when (epoch ms).
     */
    long awaitRunningAgain(Map<TaskRuns.TaskKey, Integer> before, boolean newerAttempts)
            throws IOException, InterruptedException {
        await("every task running again", status -> {
            Map<TaskRuns.TaskKey, Integer> now = TaskRuns.attempts(status);
            return TaskRuns.running(status) == before.size() && (!newerAttempts || before.entrySet().stream()
                    .allMatch(task -> now.getOrDefault(task.getKey(), -1) > task.getValue()));
        }, Duration.ofMinutes(2));
        return System.currentTimeMillis();
    }
}
