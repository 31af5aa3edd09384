package io.duraflow.jobmanager.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.rpc.proto.JobState;
import org.junit.jupiter.api.Test;

class JobMasterStateTest {
    @Test
    void terminalAndSuspendedStatesAreDeadEnds() {
        for (JobMasterState end : new JobMasterState[] {JobMasterState.FINISHED, JobMasterState.FAILED,
                JobMasterState.CANCELED, JobMasterState.SUSPENDED}) {
            for (JobMasterState target : JobMasterState.values()) {
                assertThat(end.canMoveTo(target)).as("%s -> %s", end, target).isFalse();
            }
            assertThat(end.isDeadEnd()).as(end.name()).isTrue();
        }
        for (JobMasterState live : new JobMasterState[] {JobMasterState.CREATED, JobMasterState.RUNNING,
                JobMasterState.CANCELLING}) {
            assertThat(live.isDeadEnd()).as(live.name()).isFalse();
        }
    }

    @Test
    void aSuspendedJobCannotStartAgain() {
        assertThatThrownBy(() -> JobMasterState.SUSPENDED.transitionTo(JobMasterState.RUNNING, "job-1", "late start"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("job job-1 cannot go from SUSPENDED to RUNNING (late start)");
        assertThat(JobMasterState.CREATED.transitionTo(JobMasterState.RUNNING, "job-1", "start"))
                .isEqualTo(JobMasterState.RUNNING);
    }

    @Test
    void onlyTheStatusViewSeesTheProtobufState() {
        assertThat(JobMasterState.SUSPENDED.toProto()).isEqualTo(JobState.JOB_CREATED);
        assertThat(JobMasterState.CANCELLING.toProto()).isEqualTo(JobState.JOB_CANCELLING);
        assertThat(JobMasterState.FINISHED.toProto()).isEqualTo(JobState.JOB_FINISHED);
    }
}
