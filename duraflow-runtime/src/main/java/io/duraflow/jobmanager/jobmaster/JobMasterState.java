package io.duraflow.jobmanager.jobmaster;

import io.duraflow.rpc.proto.JobState;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of a job as its {@link JobMaster} sees it.
 * <pre>
 *   CREATED -> RUNNING -> FINISHED
 *      |          |
 *      |          +--> FAILED
 *      +----------+--> CANCELLING -> CANCELED
 *      +----------+--------+--> SUSPENDED
 *      +--> FAILED (cannot even start)
 * </pre>
 * SUSPENDED means this JobManager lost its leadership: the job has no result here, the next
 * leader recovers it. It is a dead end for this job master, unlike CREATED, so a late callback
 * cannot start a suspended job again. FINISHED, FAILED and CANCELED are terminal. Clients see
 * the protobuf {@link JobState} of {@link #toProto()}, mapped only in the status view.
 */
public enum JobMasterState {
    /** Prepared or being restored; nothing deployed yet. */
    CREATED,
    /** Scheduling and running tasks. */
    RUNNING,
    /** Cancelled by the user; waiting for the tasks to confirm. */
    CANCELLING,
    /** This JobManager no longer leads; another one recovers the job. */
    SUSPENDED,
    FINISHED,
    FAILED,
    CANCELED;

    private static final Logger LOG = LoggerFactory.getLogger(JobMasterState.class);

    private Set<JobMasterState> next;

    static {
        CREATED.next = EnumSet.of(RUNNING, CANCELLING, SUSPENDED, FAILED);
        RUNNING.next = EnumSet.of(CANCELLING, SUSPENDED, FINISHED, FAILED);
        CANCELLING.next = EnumSet.of(CANCELED, SUSPENDED, FAILED);
        SUSPENDED.next = EnumSet.noneOf(JobMasterState.class);
        FINISHED.next = EnumSet.noneOf(JobMasterState.class);
        FAILED.next = EnumSet.noneOf(JobMasterState.class);
        CANCELED.next = EnumSet.noneOf(JobMasterState.class);
    }

    public boolean canMoveTo(JobMasterState target) {
        return next.contains(target);
    }

    /**
     * The one way a job's state changes: checks the move and logs it.
     *
     * @return {@code target}
     * @throws IllegalStateException if the move is not allowed
     */
    public JobMasterState transitionTo(JobMasterState target, String jobId, String reason) {
        if (!canMoveTo(target)) {
            throw new IllegalStateException("job " + jobId + " cannot go from " + this + " to " + target + " ("
                    + reason + ")");
        }
        LOG.debug("Job {}: {} -> {} ({})", jobId, this, target, reason);
        return target;
    }

    /**
     * A dead end: the job has its result, or (SUSPENDED) another leader takes it over. Nothing
     * this job master does changes the job any more.
     */
    public boolean isDeadEnd() {
        return next.isEmpty();
    }

    /** The job has its result: FINISHED, FAILED or CANCELED. */
    public boolean isTerminal() {
        return this == FINISHED || this == FAILED || this == CANCELED;
    }

    /**
     * What clients see. A suspended job shows as created: this JobManager no longer answers for
     * it, and the job has not ended.
     */
    public JobState toProto() {
        return switch (this) {
            case CREATED, SUSPENDED -> JobState.JOB_CREATED;
            case RUNNING -> JobState.JOB_RUNNING;
            case CANCELLING -> JobState.JOB_CANCELLING;
            case FINISHED -> JobState.JOB_FINISHED;
            case FAILED -> JobState.JOB_FAILED;
            case CANCELED -> JobState.JOB_CANCELED;
        };
    }
}
