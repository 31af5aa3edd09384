package io.duraflow.jobmanager.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The rules of {@link PublishedStatuses}, on a fake clock. */
class PublishedStatusesTest {
    private static final long MS = 1_000_000L;

    private final AtomicLong nanos = new AtomicLong(1_000 * MS);
    private final AtomicLong changes = new AtomicLong(7);
    private final List<String> refreshes = new ArrayList<>();
    private final PublishedStatuses published = new PublishedStatuses(nanos::get, refreshes::add);
    private final JobStatus running = JobStatus.newBuilder().setJobId("job-1").setState(JobState.JOB_RUNNING).build();

    private void publish() {
        published.publish("job-1", running, changes.get(), changes::get);
    }

    @Test
    void aCurrentStatusIsServedAsPublished() {
        publish();

        assertThat(published.current("job-1")).isSameAs(running);
        assertThat(published.current("job-2")).as("never published").isNull();
        assertThat(refreshes).isEmpty();
    }

    @Test
    void rule1AnyChangeOfStateSendsTheNextQueryToTheMainThread() {
        publish();

        changes.incrementAndGet(); // e.g. a task failed, or the job was cancelled

        assertThat(published.current("job-1")).isNull();
        publish();
        assertThat(published.current("job-1")).isSameAs(running);
    }

    @Test
    void rule2AnAgingStatusIsServedWhileTheMainThreadIsAskedOnceForANewOne() {
        publish();
        nanos.addAndGet(PublishedStatuses.REFRESH_AFTER_NANOS + MS);

        assertThat(published.current("job-1")).isSameAs(running);
        assertThat(published.current("job-1")).isSameAs(running);

        assertThat(refreshes).containsExactly("job-1");
        publish();
        assertThat(published.current("job-1")).isSameAs(running);
        assertThat(refreshes).containsExactly("job-1");
    }

    @Test
    void rule2ATooOldStatusIsNotServed() {
        publish();
        nanos.addAndGet(PublishedStatuses.MAX_AGE_NANOS + MS);

        assertThat(published.current("job-1")).isNull();
    }

    @Test
    void rule3NothingIsServedOnceTheLeaderStopsOrTheJobIsForgotten() {
        publish();
        published.forget("job-1");
        assertThat(published.current("job-1")).isNull();

        publish();
        published.close();
        assertThat(published.current("job-1")).isNull();
        publish();
        assertThat(published.current("job-1")).as("a closed leader publishes nothing").isNull();
    }
}
