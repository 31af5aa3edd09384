package io.duraflow.jobmanager.jobmaster;

import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.DELAY;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.SOURCE;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.allRunning;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.requestSplit;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.TextFileSource;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.plan.JobGraph;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Periodic enumerator work: a watching source's enumerator lists its directory on a timer, hands new files to waiting
 * readers, is replaced with its timer on a restart, and restarts the job when a listing fails.
 */
class WatchingSourceEnumeratorTest {
    @TempDir
    Path root;

    private static final long DISCOVERY_MS = 500;

    /** A source watching {@code directory} (parallelism 1) -> collect. */
    private FakeCluster watching(Path directory, JobSettings settings) {
        JobBuilder job = new JobBuilder("watching");
        job.fromSource("lines", TextFileSource.watching(directory.toString(), Duration.ofMillis(DISCOVERY_MS)))
                .parallelism(1).map(String::length, Types.INT).collect("lengths");
        FakeCluster cluster = new FakeCluster(JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING), settings,
                FakeSlotPool.of(1, 4), FakeCluster.SESSION);
        cluster.startStreaming();
        allRunning(cluster);
        return cluster;
    }

    private static long splitsSentTo(FakeCluster cluster, Deployment d) {
        return cluster.gateways.eventsTo(d.attempt()).stream().filter(e -> e.event().hasAddSplits()).count();
    }

    @Test
    void aWatchingSourceListsItsDirectoryPeriodicallyAndHandsNewFilesToWaitingReaders() throws Exception {
        Path input = Files.createDirectories(root.resolve("input"));
        FakeCluster cluster = watching(input, FakeCluster.SETTINGS);
        Deployment source = cluster.current(SOURCE, 0);
        cluster.scheduler.advance(DISCOVERY_MS);
        requestSplit(cluster, source);
        assertThat(splitsSentTo(cluster, source)).as("no file yet: the reader waits").isZero();

        Files.writeString(input.resolve("a.txt"), "one\ntwo\n");
        cluster.scheduler.advance(DISCOVERY_MS - 1);
        assertThat(splitsSentTo(cluster, source)).as("before the next listing").isZero();
        cluster.scheduler.advance(1);

        assertThat(splitsSentTo(cluster, source)).isEqualTo(1);
    }

    @Test
    void aRestartReplacesTheEnumeratorAndTheOldOnesListingsStop() throws Exception {
        Path input = Files.createDirectories(root.resolve("input"));
        Files.writeString(input.resolve("a.txt"), "one\n");
        FakeCluster cluster = watching(input, FakeCluster.SETTINGS);
        Deployment first = cluster.current(SOURCE, 0);
        cluster.scheduler.advance(DISCOVERY_MS);
        requestSplit(cluster, first);
        assertThat(splitsSentTo(cluster, first)).isEqualTo(1);

        cluster.fail(first, "boom");
        cluster.live().forEach(cluster::canceled);
        cluster.scheduler.advance(DELAY);
        allRunning(cluster);
        Deployment second = cluster.current(SOURCE, 0);
        assertThat(second.attemptNumber()).isEqualTo(1);
        requestSplit(cluster, second);

        assertThat(splitsSentTo(cluster, second)).as("without a checkpoint the new enumerator hands the file out again")
                .isEqualTo(1);
        cluster.scheduler.advance(10 * DISCOVERY_MS);
        assertThat(cluster.scheduler.pending()).as("one listing timer, the new enumerator's").isEqualTo(1);
    }

    @Test
    void aListingThatFailsRestartsTheJob() throws Exception {
        Path input = Files.createDirectories(root.resolve("input"));
        FakeCluster cluster = watching(input, FakeCluster.SETTINGS);
        cluster.scheduler.advance(DISCOVERY_MS);
        Files.delete(input);

        cluster.scheduler.advance(DISCOVERY_MS);

        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.gateways.cancels()).isNotEmpty();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
    }
}
