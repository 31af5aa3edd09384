package io.duraflow.cli.demo;

import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.TaskRuns;
import io.duraflow.cli.kafka.KeyProducer;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;

/**
 * The two crashes of the Kafka demo: when to strike ({@link #awaitKillPoint}), the SIGKILL of the
 * TaskManager that runs most of the job's tasks (inside a checkpoint: its sink may have flushed
 * its transactions for it, which then stay open in the broker until the restore aborts them) and
 * of the leader JobManager, and what each cost
 * as seen from the status polls, as {@link StreamingFailoverDemo} does for its job.
 */
final class KafkaCrashes {
    /** How long after a checkpoint completed a crash comes: about half the interval, with transactions open. */
    static final long KILL_AFTER_CHECKPOINT_MS = 500;

    /**
     * One crash, times in epoch ms.
     *
     * @param lastBefore   the newest checkpoint that had completed at the kill
     * @param newLeaderMs  after the kill; -1 for a TaskManager crash
     * @param adopted      whether the new leader adopted every running task (nothing restored)
     */
    record Crash(String what, long killedAtMs, CheckpointWatch.Seen lastBefore, long newLeaderMs,
            long runningAgainAtMs, boolean adopted) {
    }

    private final LocalCluster cluster;
    private final DemoRun job;
    private final CheckpointWatch checkpoints;
    private final KeyProducer producer;
    private final PrintStream out;

    KafkaCrashes(LocalCluster cluster, DemoRun job, CheckpointWatch checkpoints, KeyProducer producer,
            PrintStream out) {
        this.cluster = cluster;
        this.job = job;
        this.checkpoints = checkpoints;
        this.producer = producer;
        this.out = out;
    }

    /**
     * Waits until the job's source has read {@code position} records as far as its checkpoints
     * show, in a checkpoint triggered after {@code sinceMs} (the start, or the end of the last
     * recovery), then for the next checkpoint and {@link #KILL_AFTER_CHECKPOINT_MS} after it: the
     * sink's transactions of the checkpoint after are open then, with records in them.
     */
    void awaitKillPoint(long position, long sinceMs, String what) throws IOException, InterruptedException {
        job.await(what, s -> checkpoints.latest().filter(c -> c.triggeredMs() > sinceMs
                && c.sourceRecordsRead() >= position).isPresent(), Duration.ofMinutes(5));
        long latest = checkpoints.latest().get().id();
        job.await(what, s -> checkpoints.latest().get().id() > latest, Duration.ofMinutes(1));
        long completed = checkpoints.latest().get().completedMs();
        job.await(what, s -> System.currentTimeMillis() - completed >= KILL_AFTER_CHECKPOINT_MS, Duration.ofMinutes(1));
    }

    Crash killTaskManager() throws Exception {
        JobStatus before = job.poll();
        LocalTaskManagers.Victim victim = LocalTaskManagers.runningMostTasks(cluster, before);
        Map<TaskRuns.TaskKey, Integer> attempts = TaskRuns.attempts(before);
        CheckpointSummary inProgress = job.awaitCheckpointInProgress("the TaskManager crash", Duration.ofSeconds(30));
        long killedAt = System.currentTimeMillis();
        victim.process().destroyForcibly();
        checkpoints.poll();
        CheckpointWatch.Seen last = checkpoints.latest().get();
        String when = last.id() >= inProgress.getCheckpointId()
                ? "just as checkpoint " + inProgress.getCheckpointId() + " completed"
                : String.format("while checkpoint %d was in progress (triggered %,d ms before)",
                        inProgress.getCheckpointId(), killedAt - inProgress.getTriggerMs());
        out.printf("2. SIGKILL of %s (pid %d, running %d of the job's %d tasks) %s, %,d ms after checkpoint %d"
                + " completed with the source at %,d records (%,d produced)%n", victim.name(), victim.process().pid(),
                victim.tasks(), attempts.size(), when, killedAt - last.completedMs(), last.id(),
                last.sourceRecordsRead(), producer.acknowledged());
        long runningAgain = job.awaitRunningAgain(attempts, true);
        out.printf("   every task running again %,d ms after the kill%n", runningAgain - killedAt);
        return new Crash("TaskManager crash", killedAt, last, -1, runningAgain, false);
    }

    Crash killLeader(LeaderRetrieval retrieval) throws Exception {
        JobStatus before = job.poll();
        Map<TaskRuns.TaskKey, Integer> attempts = TaskRuns.attempts(before);
        LeaderInfo leader = retrieval.awaitLeader(Duration.ofSeconds(5));
        ProcessHandle leaderProcess = cluster.processListeningOn(leader.address());
        CheckpointWatch.Seen last = checkpoints.latest().get();
        long killedAt = System.currentTimeMillis();
        leaderProcess.destroyForcibly();
        out.printf("3. SIGKILL of the leader JobManager %s (pid %d), %,d ms after checkpoint %d completed with the"
                + " source at %,d records (%,d produced)%n", leader.address(), leaderProcess.pid(),
                killedAt - last.completedMs(), last.id(), last.sourceRecordsRead(), producer.acknowledged());
        LeaderInfo next;
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while ((next = retrieval.awaitLeader(Duration.ofSeconds(30))) == null || next.equals(leader)) {
            job.poll();
            if (System.nanoTime() > deadline) {
                throw new io.duraflow.cli.CliException("no new leader JobManager within 2 minutes of the kill; see"
                        + " the logs in " + cluster.workDir().resolve("log"));
            }
            Thread.sleep(5);
        }
        long newLeader = System.currentTimeMillis() - killedAt;
        out.printf("   new leader %s after %,d ms%n", next.address(), newLeader);
        // The new leader adopts the tasks the TaskManagers kept, or restarts them from the
        // latest checkpoint (adoption off, or not provable): either way every task runs under it.
        long runningAgain = job.awaitRunningAgain(attempts, false);
        JobStatus after = job.poll();
        int adopted = TaskRuns.adopted(after);
        boolean allAdopted = adopted == attempts.size() && TaskRuns.attempts(after).equals(attempts);
        if (allAdopted) {
            out.printf("   the new leader adopted all %d running tasks %,d ms after the kill: none restarted%n", adopted,
                    runningAgain - killedAt);
        } else {
            out.printf("   every task running again %,d ms after the kill%n", runningAgain - killedAt);
        }
        return new Crash("JobManager crash", killedAt, last, newLeader, runningAgain, allAdopted);
    }
}
