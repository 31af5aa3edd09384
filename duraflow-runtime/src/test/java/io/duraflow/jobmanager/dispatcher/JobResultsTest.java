package io.duraflow.jobmanager.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.rpc.proto.JobStatus;
import org.junit.jupiter.api.Test;

class JobResultsTest {
    @Test
    void anUnreadableResultIsMarkedAsSuchAndNamesItsFile() {
        JobStatus status = JobResults.toStatus(JobResultEntry.unknown("lost",
                "corrupt job result file /ha/job-result-store/lost.clean.json: checksum mismatch"));
        assertThat(status.getResultUnreadable()).isTrue();
        assertThat(status.getFailure()).startsWith("the job ended, but its stored result is unreadable: ")
                .contains("lost.clean.json").contains("checksum mismatch");
        assertThat(status.getSubmittedAtMs()).as("unknown, not invented").isZero();
    }
}
