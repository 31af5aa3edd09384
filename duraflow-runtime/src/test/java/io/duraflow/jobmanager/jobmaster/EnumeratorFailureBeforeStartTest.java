package io.duraflow.jobmanager.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.config.RuntimeMode;
import io.duraflow.api.JobBuilder;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.plan.JobGraph;
import org.junit.jupiter.api.Test;

/**
 * A split enumerator whose periodic work fails before the job starts (its first result is handled
 * while the dispatcher still stores the job): the failure is not dropped, the started job fails
 * with its cause or restarts.
 */
class EnumeratorFailureBeforeStartTest {
    private static final long DELAY_MS = FakeCluster.SETTINGS.restartDelayMs();

    private static JobGraph graph(RuntimeMode mode) {
        JobBuilder job = new JobBuilder("failing-enumerator");
        job.fromSource("numbers", TestSources.source(TestSources.Behaviour.FAIL_FIRST_ASYNC)).parallelism(2)
                .collect("all");
        return JobGraph.compile(job.plan(), 2, mode);
    }

    /** Prepared as the dispatcher does; the enumerator's work ends (and fails) before the start. */
    private static FakeCluster preparedAndFailedBeforeStart(RuntimeMode mode, JobSettings settings) {
        FakeCluster cluster = new FakeCluster(graph(mode), settings, FakeSlotPool.of(2, 4));
        cluster.prepare();
        cluster.scheduler.runDue();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CREATED);
        cluster.job.start();
        cluster.scheduler.runDue();
        return cluster;
    }

    @Test
    void aStreamingJobWithoutRestartsFailsWithTheCause() {
        FakeCluster cluster = preparedAndFailedBeforeStart(RuntimeMode.STREAMING, FakeCluster.withRestarts(0));

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.job.status().getFailure()).contains("a split enumerator failed")
                .contains("topic 'missing' not found");
    }

    @Test
    void aStreamingJobWithRestartsRestartsUntilNoneAreLeft() {
        // Every new enumerator fails again: each failure is a restart, until the strategy's 3 are used.
        FakeCluster cluster = preparedAndFailedBeforeStart(RuntimeMode.STREAMING, FakeCluster.SETTINGS);
        for (int restart = 1; restart <= 3; restart++) {
            cluster.scheduler.advance(DELAY_MS);
            cluster.live().forEach(cluster::canceled);
        }

        assertThat(cluster.job.restarts()).isEqualTo(3);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.job.status().getFailure()).contains("topic 'missing' not found")
                .contains("no restarts left");
    }

    /**
     * Each restart replaces the enumerator only after the restart delay: a new one that fails again
     * at once does not use up every restart at once.
     */
    @Test
    void eachRestartOfAnEnumeratorThatFailsAgainWaitsTheRestartDelay() {
        FakeCluster cluster = preparedAndFailedBeforeStart(RuntimeMode.STREAMING, FakeCluster.SETTINGS);
        assertThat(cluster.job.restarts()).isEqualTo(1);

        for (int restart = 2; restart <= 3; restart++) {
            cluster.scheduler.advance(DELAY_MS - 1);
            assertThat(cluster.job.restarts()).as("before the restart delay").isEqualTo(restart - 1);
            assertThat(cluster.live()).as("nothing deployed before the restart delay").isEmpty();
            cluster.scheduler.advance(1);
            assertThat(cluster.job.restarts()).isEqualTo(restart);
            // The restored tasks were deployed before the new enumerator failed: they confirm their cancellation.
            cluster.live().forEach(cluster::canceled);
        }
        cluster.scheduler.advance(DELAY_MS - 1);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        cluster.scheduler.advance(1);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.job.status().getFailure()).contains("no restarts left");
    }

    @Test
    void aBatchJobFailsWithTheCause() {
        FakeCluster cluster = preparedAndFailedBeforeStart(RuntimeMode.BATCH, FakeCluster.SETTINGS);

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.job.status().getFailure()).contains("a split enumerator failed")
                .contains("topic 'missing' not found");
    }
}
