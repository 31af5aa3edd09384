package io.duraflow.jobmanager.jobmaster;

import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.ackAll;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.allRunning;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.stateOf;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.task;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.triggered;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.types.Types;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointTriggers;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.plan.JobGraph;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Final checkpoints: a bounded streaming job's tasks finish after a checkpoint that reached them
 * after their input ended, triggered as soon as the tasks a checkpoint starts at are ready.
 */
class FinalCheckpointsTest {
    private static final int SOURCES = 0;
    private static final int FIRST = 1;
    private static final int SECOND = 2;

    @TempDir
    Path root;

    private static final int SOURCE = 0;

    private FakeCluster started() {
        RecordingSequenceSource.clear();
        FakeCluster cluster = new FakeCluster(StreamingJobMasterTest.streamingJob(), FakeCluster.SETTINGS,
                FakeSlotPool.of(2, 4), FakeCluster.SESSION);
        cluster.enableCheckpoints(root);
        cluster.startStreaming();
        return cluster;
    }

    /** source (2) -> keyed reduce (3) -> keyed reduce (2) -> collect. */
    private static JobGraph threeStages() {
        JobBuilder job = new JobBuilder("three-stages");
        job.fromSource("numbers", new RecordingSequenceSource(0, 100, 2)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(3)
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum).parallelism(2)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    /**
     * Found on Nexmark q7 (bids, windows per auction, then per window): once the sources finished,
     * the first windows ended their input, yet the final checkpoint that lets them finish waited
     * for the second stage to end its input too, which it cannot before the first finishes; the
     * periodic checkpoint came up to an interval later. The checkpoint is due once every task it
     * starts at has ended its input. (Here, as there, one source ends and is finished by a
     * periodic checkpoint before the other ends.)
     */
    @Test
    void eachStageIsFinishedByACheckpointTriggeredOnceItEndedItsInputNotAtTheNextInterval() {
        RecordingSequenceSource.clear();
        FakeCluster cluster = new FakeCluster(threeStages(), FakeCluster.SETTINGS, FakeSlotPool.of(2, 4),
                FakeCluster.SESSION);
        cluster.enableCheckpoints(root);
        cluster.startStreaming();
        assertThat(cluster.graph.vertices()).hasSize(3);
        allRunning(cluster);
        Deployment early = cluster.current(SOURCES, 0);
        Deployment late = cluster.current(SOURCES, 1);
        cluster.job.onInputEnded(early.attempt());
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(triggered(cluster, 1)).as("the periodic checkpoint").hasSize(2);
        ackAll(cluster, 1);
        cluster.finish(early);
        cluster.job.onInputEnded(late.attempt());
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 2)).as("the last source's final checkpoint").containsExactly(late);
        ackAll(cluster, 2);
        cluster.finish(late);
        long sourcesFinishedAt = cluster.scheduler.now();

        List<Deployment> first = cluster.live(FIRST);
        first.forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 3)).as("at once, at the first stage, the second still running")
                .containsExactlyInAnyOrderElementsOf(first);
        ackAll(cluster, 3);
        first.forEach(cluster::finish);

        List<Deployment> second = cluster.live(SECOND);
        second.forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 4)).containsExactlyInAnyOrderElementsOf(second);
        ackAll(cluster, 4);
        second.forEach(cluster::finish);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.scheduler.now()).as("no interval waited for after the sources")
                .isEqualTo(sourcesFinishedAt);
        assertThat(cluster.gateways.triggers()).as("no checkpoint but these four")
                .allMatch(t -> t.request().getCheckpointId() <= 4);
    }

    @Test
    void whenEverySourceEndedItsInputTheFinalCheckpointIsTriggeredAtOnceAndTheJobFinishesWithItsTasks() {
        FakeCluster cluster = started();
        allRunning(cluster);
        cluster.job.onInputEnded(cluster.current(SOURCE, 0).attempt());
        cluster.scheduler.runDue();
        assertThat(cluster.gateways.triggers()).isEmpty();

        cluster.job.onInputEnded(cluster.current(SOURCE, 1).attempt());
        cluster.scheduler.runDue();
        assertThat(cluster.gateways.triggers()).as("no interval waited for").hasSize(2);
        ackAll(cluster, 1);
        assertThat(cluster.gateways.notifications()).allSatisfy(n -> assertThat(n.notification().getCompleted())
                .isTrue());

        List<Deployment> live = cluster.live();
        live.forEach(cluster::finish);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
    }

    /**
     * Found on Nexmark q7: a stage finishes on its TaskManager once its final checkpoint is taken,
     * and the next stage may report the end of its input before the JobManager hears that the
     * stage finished. A checkpoint triggered then started at the finished tasks, failed, and the
     * job waited {@value CheckpointTriggers#FINAL_RETRY_DELAY_MS} ms to try again (a tenth of a
     * two-second run). It waits for the finished tasks' reports instead, then triggers the tasks
     * whose producers finished directly.
     */
    @Test
    void finishedTasksLeaveTheNextCheckpointAndTasksWhoseProducersFinishedAreTriggeredDirectly() {
        FakeCluster cluster = started();
        allRunning(cluster);
        cluster.job.onInputEnded(cluster.current(SOURCE, 0).attempt());
        cluster.job.onInputEnded(cluster.current(SOURCE, 1).attempt());
        cluster.scheduler.runDue();
        ackAll(cluster, 1);
        List<Deployment> sources = cluster.live(SOURCE);
        List<Deployment> sums = cluster.live(1);

        // The keyed tasks read the end of their input and report it before the JobManager hears
        // that the sources finished.
        sums.forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 2)).as("nothing while the sources' ends are on their way").isEmpty();
        sources.forEach(cluster::finish);
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 2)).as("at once, at the keyed tasks").containsExactlyInAnyOrderElementsOf(sums);
        ackAll(cluster, 2);
        sums.forEach(cluster::finish);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.job.checkpointHistory()).as("no checkpoint failed")
                .allMatch(c -> c.status() == CheckpointStats.Status.COMPLETED);
    }

    /**
     * Both sources ended their input and took their part of final checkpoint 1, the first one
     * reported its end and the second one has not yet, and the keyed tasks ended their input.
     * Returns the sources.
     */
    private static List<Deployment> secondSourceEndOnItsWay(FakeCluster cluster) {
        allRunning(cluster);
        List<Deployment> sources = cluster.live(SOURCE);
        sources.forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        ackAll(cluster, 1);
        cluster.finish(sources.get(0));
        cluster.live(1).forEach(d -> cluster.job.onInputEnded(d.attempt()));
        return sources;
    }

    /**
     * The wait above must not hold a job for good: a task whose final checkpoint completed but
     * that never says it finished (it did not hear of the completion, say) is included again in a
     * checkpoint {@value CheckpointTriggers#FINAL_RETRY_DELAY_MS} ms later, whose completion lets
     * it finish.
     */
    @Test
    void aTaskThatNeverReportsItsEndHoldsTheNextFinalCheckpointBackOnlyForTheRetryDelay() {
        FakeCluster cluster = started();
        List<Deployment> sources = secondSourceEndOnItsWay(cluster);
        List<Deployment> sums = cluster.live(1);
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 2)).as("while the other source's end may be on its way").isEmpty();

        cluster.scheduler.advance(CheckpointTriggers.FINAL_RETRY_DELAY_MS);
        assertThat(triggered(cluster, 2)).as("at the source still running").containsExactly(sources.get(1));
        ackAll(cluster, 2);
        cluster.finish(sources.get(1));
        sums.forEach(cluster::finish);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
    }

    /**
     * Seen at the end of bounded Kafka jobs: the keyed tasks ended their input before the
     * JobManager heard that the second source finished, so a final checkpoint was triggered at
     * that source, which had finished meanwhile; its end aborted the checkpoint, and the next one
     * waited the whole retry delay. A task's end changes the plan: it is tried again at once.
     */
    @Test
    void aFinalCheckpointThatATasksEndAbortedIsTriedAgainAtOnceWithoutIt() {
        FakeCluster cluster = started();
        List<Deployment> sources = secondSourceEndOnItsWay(cluster);
        List<Deployment> sums = cluster.live(1);
        cluster.scheduler.advance(CheckpointTriggers.FINAL_RETRY_DELAY_MS);
        assertThat(triggered(cluster, 2)).containsExactly(sources.get(1));

        cluster.finish(sources.get(1));
        cluster.scheduler.runDue();

        assertThat(cluster.job.checkpointHistory()).filteredOn(stats -> stats.checkpointId() == 2)
                .extracting(CheckpointStats::status).containsExactly(CheckpointStats.Status.FAILED);
        assertThat(triggered(cluster, 3)).as("without waiting for the retry delay")
                .containsExactlyInAnyOrderElementsOf(sums);
        ackAll(cluster, 3);
        sums.forEach(cluster::finish);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
    }

    @Test
    void aFinalCheckpointThatFailsIsTriedAgainSoonAndItsFailureIsNoJobFailure() {
        FakeCluster cluster = started();
        allRunning(cluster);
        cluster.live(SOURCE).forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        Deployment source = cluster.current(SOURCE, 0);
        cluster.job.declineCheckpoint(task(source), 1, new CheckpointFailure(1,
                CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT, "not now", task(source).toString()));
        cluster.scheduler.runDue();
        assertThat(cluster.job.checkpointHistory()).last().satisfies(stats -> {
            assertThat(stats.checkpointId()).isEqualTo(1);
            assertThat(stats.status()).isEqualTo(CheckpointStats.Status.FAILED);
        });

        cluster.scheduler.advance(CheckpointTriggers.FINAL_RETRY_DELAY_MS - 1);
        assertThat(triggered(cluster, 2)).isEmpty();
        cluster.scheduler.advance(1);
        assertThat(triggered(cluster, 2)).containsExactlyInAnyOrderElementsOf(cluster.live(SOURCE));
        ackAll(cluster, 2);
        assertThat(cluster.job.state()).as("an aborted final checkpoint is no failure").isEqualTo(JobMasterState.RUNNING);
    }

    /**
     * StreamingCheckpointsIT.taskManagerKilledDuringTheFinalCheckpoint found two final checkpoints
     * in progress at once: the retry of a final checkpoint that failed (a source finished before it
     * took its part) came 2 ms after a periodic checkpoint that started after every task had ended
     * its input, and triggered another one beside it (a trigger by hand ignores the concurrency
     * limit). The periodic one reaches every task after its end: it is the final checkpoint.
     */
    @Test
    void aCheckpointStartedAfterEveryTaskEndedItsInputIsTheFinalOneAndNoOtherIsTriggeredBesideIt() {
        FakeCluster cluster = started();
        allRunning(cluster);
        cluster.live(SOURCE).forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        ackAll(cluster, 1);
        cluster.live(SOURCE).forEach(cluster::finish);
        List<Deployment> sums = cluster.live(1);
        sums.forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 2)).as("the keyed tasks' final checkpoint").containsExactlyInAnyOrderElementsOf(sums);

        // It is declined late: its retry is due 50 ms after the next periodic trigger (one
        // interval after checkpoint 2's trigger).
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS - CheckpointTriggers.FINAL_RETRY_DELAY_MS + 50);
        cluster.job.declineCheckpoint(task(sums.get(0)), 2, new CheckpointFailure(2,
                CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT, "not now", task(sums.get(0)).toString()));
        cluster.scheduler.advance(CheckpointTriggers.FINAL_RETRY_DELAY_MS - 50);
        assertThat(triggered(cluster, 3)).as("the periodic checkpoint").containsExactlyInAnyOrderElementsOf(sums);
        cluster.scheduler.advance(50);
        assertThat(cluster.gateways.triggers()).as("triggers after the periodic checkpoint's")
                .allMatch(t -> t.request().getCheckpointId() <= 3);
        assertThat(cluster.job.checkpointHistory()).as("checkpoints in progress")
                .filteredOn(stats -> stats.status() == CheckpointStats.Status.IN_PROGRESS)
                .extracting(CheckpointStats::checkpointId).containsExactly(3L);

        for (Deployment d : sums) {
            cluster.job.acknowledgeCheckpoint(task(d), 3, stateOf(cluster.graph, d, 3), CheckpointMetrics.NONE);
        }
        cluster.scheduler.runDue();
        sums.forEach(cluster::finish);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.job.checkpointHistory()).extracting(CheckpointStats::checkpointId).containsExactly(1L, 2L,
                3L);
    }

    @Test
    void aJobCancelledDuringItsFinalCheckpointDoesNotTryItAgain() {
        FakeCluster cluster = started();
        allRunning(cluster);
        cluster.live().forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 1)).as("the final checkpoint's triggers").isNotEmpty();

        cluster.job.cancel();
        cluster.live().forEach(cluster::canceled);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELED);
        cluster.scheduler.advance(CheckpointTriggers.FINAL_RETRY_DELAY_MS * 10);

        assertThat(cluster.scheduler.pending()).as("main-thread actions left behind by the cancelled job").isZero();
        assertThat(cluster.job.checkpointHistory()).extracting(CheckpointStats::checkpointId).containsExactly(1L);
    }
}
