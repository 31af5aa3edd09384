package io.duraflow.jobmanager.jobmaster;

/**
 * What a job master records of taking its job over from an earlier leader, for the job's status
 * ({@link JobStatusView}) and the dispatcher: when, and what it kept of the earlier run. A batch
 * job records it in its recovery ({@link BatchMode#restore}, {@link BatchMode#adopt}), a streaming
 * one when it takes over its kept tasks ({@link StreamingMode#startTakingOver}). All stay 0 for a
 * job submitted to this leader.
 *
 * <p>Main thread only, like the JobMaster.
 */
final class LeaderTakeover {
    /** When the leader that recovers this job was elected; 0 for a job submitted to it. */
    private long leaderElectedAtMs;
    /** When this job master took the job over from an earlier leader; 0 if it did not. */
    private long takenOverAtMs;
    /** Executions taken over without running again. */
    private int restoredTasks;
    /** Executions adopted running. */
    private int adoptedTasks;

    long leaderElectedAtMs() {
        return leaderElectedAtMs;
    }

    void leaderElectedAt(long electedAtMs) {
        this.leaderElectedAtMs = electedAtMs;
    }

    long takenOverAtMs() {
        return takenOverAtMs;
    }

    void takenOverAt(long nowMs) {
        this.takenOverAtMs = nowMs;
    }

    int restoredTasks() {
        return restoredTasks;
    }

    void restoredTasks(int count) {
        this.restoredTasks = count;
    }

    int adoptedTasks() {
        return adoptedTasks;
    }

    void adoptedTasks(int count) {
        this.adoptedTasks = count;
    }
}
