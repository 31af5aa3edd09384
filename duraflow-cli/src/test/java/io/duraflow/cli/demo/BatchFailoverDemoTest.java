package io.duraflow.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import org.junit.jupiter.api.Test;

/** How 'duraflow demo batch-failover' counts what the leader's crash cost; BatchFailoverDemoIT runs the demo. */
class BatchFailoverDemoTest {
    @Test
    void theDemoCountsRerunsPerTaskAndByWhatWasKept() {
        BatchFailoverDemo.RecoverySeen seen = new BatchFailoverDemo.RecoverySeen();
        seen.add(JobStatus.newBuilder().setState(JobState.JOB_CREATED).build());
        seen.add(JobStatus.newBuilder().setState(JobState.JOB_RUNNING).setRestoredTasks(5).build());
        seen.add(JobStatus.newBuilder().setState(JobState.JOB_FINISHED).setRestoredTasks(0).build());

        // 5 finished before the crash, none under a higher number now, 5 kept: none ran again.
        assertThat(BatchFailoverDemo.rerunCount(5, 0, seen)).isZero();
        // 6 finished before, 1 ran again with a higher number, 5 kept: the other 5 were kept.
        assertThat(BatchFailoverDemo.rerunCount(6, 1, seen)).isEqualTo(1);
        // 8 finished before, none with a higher number, only 5 kept: a restart from the beginning
        // numbered the other 3 from 0 again; they ran again.
        assertThat(BatchFailoverDemo.rerunCount(8, 0, seen)).isEqualTo(3);
        // Without a status of the running job under the new leader, only the attempt numbers count.
        assertThat(BatchFailoverDemo.rerunCount(8, 2, new BatchFailoverDemo.RecoverySeen())).isEqualTo(2);
    }

    @Test
    void theDemoTakesTheTakeOverTimeFromTheFirstStatusThatHasBoth() {
        BatchFailoverDemo.RecoverySeen seen = new BatchFailoverDemo.RecoverySeen();
        seen.add(JobStatus.newBuilder().setState(JobState.JOB_RUNNING).build());
        assertThat(seen.takeOverMs).as("no take-over seen yet").isEqualTo(-1);

        // A job that finished before the first poll under the new leader: its terminal status counts too.
        seen.add(JobStatus.newBuilder().setState(JobState.JOB_FINISHED).setLeaderElectedAtMs(10_000)
                .setTakenOverAtMs(10_420).build());
        seen.add(JobStatus.newBuilder().setState(JobState.JOB_FINISHED).setLeaderElectedAtMs(20_000)
                .setTakenOverAtMs(29_000).build());

        assertThat(seen.takeOverMs).isEqualTo(420);
    }
}
