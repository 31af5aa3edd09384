package io.duraflow.jobmanager.jobmaster.coordination;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.FakeCluster;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.JobMasterState;
import io.duraflow.jobmanager.jobmaster.TestSources;

import static io.duraflow.jobmanager.jobmaster.JobMasterSourceSplitsTest.FOUR_SPLITS;
import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.jobmanager.jobmaster.FakeSlotPool;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Event;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A push-style split enumerator (assigns without being asked, as Kafka's does) through the job
 * master: assignments to subtasks that do not run yet wait and are delivered when they run,
 * every assignment is recorded in the job event log with the attempt it was given to, and a
 * reset gives pending splits back too.
 */
class SourceCoordinatorPushTest {
    private static final long DELAY = FakeCluster.SETTINGS.restartDelayMs();

    /** The split events of the job event log, in order. */
    private static final class SplitLog implements JobEventLog {
        final List<String> entries = new ArrayList<>();

        @Override
        public void vertexInitialized(int vertex, int parallelism, int[] rangeBounds) {}

        @Override
        public void executionFinished(Execution execution, TaskStateUpdate update) {}

        @Override
        public void executionsReset(List<Execution> executions, String reason) {
            executions.forEach(e -> entries.add("reset " + e.subtask() + "#" + e.attempt()));
        }

        @Override
        public void splitsAssigned(int nodeId, int subtask, int attempt, List<byte[]> splits) {
            List<Long> starts = splits.stream().map(b -> RangeSplit.SERIALIZER.fromBytes(b).from()).toList();
            entries.add("assigned " + subtask + "#" + attempt + " " + starts);
        }

        @Override
        public void splitsReturned(int nodeId, int subtask, int count) {
            entries.add("returned " + subtask + " " + count);
        }

        @Override
        public void coordinatorState(int nodeId, byte[] enumeratorState) {}

        @Override
        public void runStarted(String reason) {
            entries.add("run started");
        }
    }

    private final SplitLog log = new SplitLog();

    private FakeCluster started() {
        FakeCluster cluster = new FakeCluster(TestSources.sourceOnly(TestSources.Behaviour.PUSH), FakeCluster.SETTINGS,
                FakeSlotPool.of(2, 2));
        cluster.job.eventLog(log);
        cluster.start();
        return cluster;
    }

    private static List<String> eventKinds(FakeCluster cluster, Deployment d) {
        return cluster.gateways.eventsTo(d.attempt()).stream().map(Event::event)
                .map(e -> e.hasAddSplits() ? "add " + e.getAddSplits().getSplitsCount() : e.getEventCase().name())
                .toList();
    }

    @Test
    void splitsPushedBeforeAnySubtaskRunsAreRecordedAndDeliveredWhenItRuns() {
        FakeCluster cluster = started();
        Deployment s0 = cluster.current(SOURCE, 0);
        Deployment s1 = cluster.current(SOURCE, 1);
        assertThat(log.entries).as("recorded at once, for the attempts they were given to")
                .containsExactly("assigned 0#0 [0, 500]", "assigned 1#0 [250, 750]");
        assertThat(cluster.gateways.events()).as("nothing sent to subtasks that are only deploying").isEmpty();

        cluster.running(s0);

        assertThat(eventKinds(cluster, s0)).containsExactly("add 2", "NO_MORE_SPLITS");
        assertThat(cluster.splitsSentTo(s0.attempt())).containsExactly(FOUR_SPLITS.get(0), FOUR_SPLITS.get(2));
        assertThat(cluster.gateways.eventsTo(s1.attempt())).isEmpty();

        cluster.running(s1);
        cluster.finish(s0);
        cluster.finish(s1);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.splitsReadByFinishedAttempts(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
    }

    @Test
    void splitsPushedWhileTheJobIsPreparedAreRecordedOnlyOnceItStartsAfterARunStarted() throws Exception {
        FakeCluster cluster = new FakeCluster(TestSources.sourceOnly(TestSources.Behaviour.PUSH), FakeCluster.SETTINGS,
                FakeSlotPool.of(2, 2));
        cluster.job.eventLog(log);
        cluster.prepare();
        assertThat(log.entries).as("a recovery may still replace the enumerator").isEmpty();

        cluster.job.logRunStarted("starts over");
        cluster.job.start();

        assertThat(log.entries).containsExactly("run started", "assigned 0#0 [0, 500]", "assigned 1#0 [250, 750]");
    }

    @Test
    void aSubtaskResetBeforeItEverRanGivesItsPendingSplitsBackAndItsNextAttemptGetsThem() {
        FakeCluster cluster = started();
        Deployment s0 = cluster.current(SOURCE, 0);

        cluster.fail(s0, "deployment lost");

        assertThat(log.entries).containsExactly("assigned 0#0 [0, 500]", "assigned 1#0 [250, 750]",
                "returned 0 2", "reset 0#1", "assigned 0#1 [0, 500]");
        cluster.scheduler.advance(DELAY);
        Deployment s0Again = cluster.current(SOURCE, 0);
        assertThat(s0Again.attemptNumber()).isEqualTo(1);
        cluster.running(s0Again);
        assertThat(eventKinds(cluster, s0Again)).containsExactly("add 2", "NO_MORE_SPLITS");
        assertThat(cluster.gateways.eventsTo(s0.attempt())).as("the failed attempt never got any").isEmpty();
    }

    @Test
    void aFailedSubtaskGivesItsDeliveredSplitsBackAndItsNextAttemptReadsThem() {
        FakeCluster cluster = started();
        Deployment s0 = cluster.current(SOURCE, 0);
        Deployment s1 = cluster.current(SOURCE, 1);
        cluster.running(s0);
        cluster.running(s1);
        cluster.finish(s1);
        cluster.fail(s0, "reader crashed");
        cluster.scheduler.advance(DELAY);

        Deployment s0Again = cluster.current(SOURCE, 0);
        cluster.running(s0Again);
        cluster.finish(s0Again);

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.splitsReadByFinishedAttempts(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
        assertThat(log.entries).endsWith("returned 0 2", "reset 0#1", "assigned 0#1 [0, 500]");
    }

    @Test
    void aFinishedSubtaskWhoseOutputIsLostGetsItsSplitsPushedBackForItsNextAttempt() {
        FakeCluster cluster = new FakeCluster(TestSources.threeStages(TestSources.Behaviour.PUSH),
                FakeCluster.SETTINGS, FakeSlotPool.of(2, 2));
        cluster.job.eventLog(log);
        cluster.start();
        Deployment s0 = cluster.current(SOURCE, 0);
        assertThat(s0.tmId()).isEqualTo("tm-1");
        cluster.live(SOURCE).forEach(d -> {
            cluster.running(d);
            cluster.finish(d);
        });

        // The first reduce has not read subtask 0's output yet: it runs again, and its enumerator
        // pushes the splits it gets back straight to subtask 0, which had finished.
        cluster.slots.removeTaskManager("tm-1");
        cluster.job.onTaskManagerLost("tm-1");

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        assertThat(log.entries).endsWith("returned 0 2", "reset 0#1", "assigned 0#1 [0, 500]");
        cluster.scheduler.advance(DELAY);
        Deployment s0Again = cluster.current(SOURCE, 0);
        assertThat(s0Again.attemptNumber()).isEqualTo(1);
        cluster.running(s0Again);
        assertThat(eventKinds(cluster, s0Again)).containsExactly("add 2", "NO_MORE_SPLITS");
        assertThat(cluster.splitsSentTo(s0Again.attempt())).containsExactly(FOUR_SPLITS.get(0), FOUR_SPLITS.get(2));
    }
}
