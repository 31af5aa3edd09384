package io.duraflow.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobManagerRunnerTest {
    @TempDir
    Path dir;

    @Test
    void closeStandsByBeforeItStopsTheMainThread() throws Exception {
        Configuration config = Configuration.fromMap(Map.of("cluster.work-dir", dir.toString(),
                "jobmanager.rpc.port", "0"));
        JobManagerRunner runner = JobManagerRunner.start(config);
        await().atMost(Duration.ofSeconds(30)).until(() -> runner.mainThread().call(runner::isLeading).get());

        runner.close();

        // Before the fix close() enqueued the stand-by and shut the main thread down right after,
        // so the leadership (its jobs, its ResourceManager) was never closed.
        assertThat(runner.isLeading()).isFalse();
    }

    /** The warm-up's calls change nothing on a leader, and a warm-up that cannot connect only logs. */
    @Test
    void theStandbyWarmUpChangesNothingAndNeverFails() throws Exception {
        Configuration config = Configuration.fromMap(Map.of("cluster.work-dir", dir.toString(),
                "jobmanager.rpc.port", "0"));
        JobManagerRunner runner = JobManagerRunner.start(config);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> runner.mainThread().call(runner::isLeading).get());

            StandbyWarmUp.run(runner.address());
            StandbyWarmUp.run("127.0.0.1:1");

            assertThat(runner.mainThread().call(() -> runner.resourceManager().taskManagers()).get()).isEmpty();
            assertThat(runner.mainThread().call(() -> runner.dispatcher().list()).get()).isEmpty();
        } finally {
            runner.close();
        }
    }

    @Test
    void aTakeOverThatKeepsFailingBacksOffUpToThirtySeconds() {
        assertThat(JobManagerRunner.rejoinDelayMs(1)).isZero();
        assertThat(JobManagerRunner.rejoinDelayMs(2)).isEqualTo(1_000);
        assertThat(JobManagerRunner.rejoinDelayMs(3)).isEqualTo(2_000);
        assertThat(JobManagerRunner.rejoinDelayMs(7)).isEqualTo(30_000);
        assertThat(JobManagerRunner.rejoinDelayMs(1_000)).isEqualTo(30_000);
    }
}
