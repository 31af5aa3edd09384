package io.duraflow.jobmanager.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.plan.JobGraph;
import java.nio.file.Path;
import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A split enumerator whose periodic work fails while a streaming job reads the checkpoint it
 * starts from (checkpointing on, no checkpoint yet): a first start keeps its enumerators, so the
 * failure is not part of a restart that replaces them; the job fails over from it once restored.
 */
class EnumeratorFailureWhileRestoringTest {
    @TempDir
    Path root;

    private static JobGraph graph() {
        JobBuilder job = new JobBuilder("failing-enumerator");
        job.fromSource("numbers", TestSources.source(TestSources.Behaviour.FAIL_FIRST_ASYNC)).parallelism(2)
                .collect("all");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    /** Started with the checkpoint read held in {@code io}; the enumerator's work fails meanwhile. */
    private FakeCluster failedWhileRestoring(JobSettings settings, ArrayDeque<Runnable> io) {
        FakeCluster cluster = new FakeCluster(graph(), settings, FakeSlotPool.of(2, 4));
        cluster.enableCheckpoints(root, io::add);
        cluster.prepare();
        cluster.job.start();
        cluster.scheduler.runDue();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        assertThat(io).as("the latest checkpoint is still being read").isNotEmpty();
        return cluster;
    }

    private static void runAll(ArrayDeque<Runnable> io, FakeCluster cluster) {
        while (!io.isEmpty() || cluster.scheduler.runDue() > 0) {
            while (!io.isEmpty()) {
                io.poll().run();
            }
        }
    }

    @Test
    void withoutRestartsTheJobFailsWithTheCauseOnceRestored() {
        ArrayDeque<Runnable> io = new ArrayDeque<>();
        FakeCluster cluster = failedWhileRestoring(FakeCluster.withRestarts(0), io);

        runAll(io, cluster);

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.job.status().getFailure()).contains("a split enumerator failed")
                .contains("topic 'missing' not found");
    }

    @Test
    void withRestartsTheJobRestartsInsteadOfRunningOnWithTheFailedEnumerator() {
        ArrayDeque<Runnable> io = new ArrayDeque<>();
        FakeCluster cluster = failedWhileRestoring(FakeCluster.SETTINGS, io);

        runAll(io, cluster);

        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.gateways.deployments()).as("nothing deployed before the restart delay").isEmpty();
    }
}
