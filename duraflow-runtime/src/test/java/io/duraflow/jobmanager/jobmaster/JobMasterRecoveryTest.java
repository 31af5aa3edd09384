package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.jobmaster.scheduling.AdaptiveParallelism;

import static io.duraflow.jobmanager.jobmaster.JobMasterSchedulingTest.location;
import static io.duraflow.jobmanager.jobmaster.JobMasterSourceSplitsTest.FOUR_SPLITS;
import static io.duraflow.jobmanager.jobmaster.TestJobs.FINAL;
import static io.duraflow.jobmanager.jobmaster.TestJobs.REDUCE;
import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.jobmanager.recovery.RecoveryPlanner;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.InputGate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Batch job recovery end to end, without processes: a first job master runs part of a job and
 * records its job events in memory; it "dies" (the test stops driving it); a second job master,
 * the new leader, plans from those events and the partitions the TaskManagers kept, restores
 * and starts. The recording gateways show what each leader deployed and which splits it handed
 * out; the finished attempts of every source must read every split exactly once.
 */
class JobMasterRecoveryTest {
    private static final long DELAY = FakeCluster.SETTINGS.restartDelayMs();

    /** Every leader appends here, as every session of a job appends to the same job event log. */
    private final List<JobEvent> events = new ArrayList<>();
    /** The leaders so far, the first one first. */
    private final List<FakeCluster> leaders = new ArrayList<>();

    // ------------------------------------------------------------------ leaders

    /** The first leader of the job, started; it records its events. */
    private FakeCluster firstLeader(JobGraph graph) {
        FakeCluster cluster = new FakeCluster(graph, FakeCluster.SETTINGS, FakeSlotPool.of(2, 2), "session-1");
        record(cluster);
        cluster.start();
        return cluster;
    }

    /**
     * The next leader, after the last one died: plans from the events recorded so far and the
     * partitions the TaskManagers kept, restores and starts. The TaskManagers tm-1 and tm-2 survived,
     * their slots are free again.
     */
    private FakeCluster nextLeader(JobGraph graph, JobSettings settings, Map<String, String> heldPartitions) {
        RecoveryPlan plan = RecoveryPlanner.plan(graph, List.copyOf(events), heldPartitions);
        FakeCluster cluster = new FakeCluster(graph, settings, FakeSlotPool.of(2, 2),
                "session-" + (leaders.size() + 1));
        record(cluster);
        cluster.startRecovered(plan);
        return cluster;
    }

    private FakeCluster nextLeader(JobGraph graph, Map<String, String> heldPartitions) {
        return nextLeader(graph, FakeCluster.SETTINGS, heldPartitions);
    }

    private void record(FakeCluster cluster) {
        cluster.job.eventLog(new RecordingJobEventLog(events::add, () -> { }, cluster.scheduler::now));
        leaders.add(cluster);
    }

    // ------------------------------------------------------------------ what the leaders did

    /** The highest attempt of the subtask that any leader deployed, or -1. */
    private int highestDeployedAttempt(int vertex, int subtask) {
        return leaders.stream().flatMap(l -> l.deploymentsOf(vertex, subtask).stream())
                .mapToInt(Deployment::attemptNumber).max().orElse(-1);
    }

    /**
     * The splits read by the attempts of a source vertex that finished in the end (the current
     * attempts on the last leader, which must all be FINISHED), whichever leader handed them out.
     */
    private List<RangeSplit> splitsReadInTheEnd(int vertex) {
        FakeCluster last = leaders.get(leaders.size() - 1);
        List<RangeSplit> read = new ArrayList<>();
        for (Execution execution : last.job.executions(vertex)) {
            assertThat(execution.state()).as("%s", execution).isEqualTo(ExecutionState.FINISHED);
            leaders.forEach(leader -> read.addAll(leader.splitsSentTo(execution.attemptId())));
        }
        read.sort(Comparator.comparingLong(RangeSplit::from));
        return read;
    }

    private static List<String> describe(List<Deployment> deployments) {
        return deployments.stream().map(d -> FakeCluster.describe(d.attempt())).toList();
    }

    /** Word count with its sources finished (s0 read splits 0 and 2 on tm-1, s1 splits 1 and 3 on tm-2), reduces running. */
    private FakeCluster wordCountWithReducesRunning() {
        FakeCluster first = firstLeader(TestJobs.wordCount(4));
        first.readInTurnsAndFinish(SOURCE);
        assertThat(first.job.executions(REDUCE)).hasSize(2);
        first.live(REDUCE).forEach(first::running);
        return first;
    }

    // ------------------------------------------------------------------ scenarios

    @Test
    void sourcesFinishedAndReducesRunningOnlyTheReducesRunAgainWithNewAttempts() {
        FakeCluster first = wordCountWithReducesRunning();

        FakeCluster second = nextLeader(TestJobs.wordCount(4), first.finishedPartitions());

        assertThat(second.job.restoredTasks()).isEqualTo(2);
        assertThat(describe(second.gateways.deployments())).containsExactly("v1/0#1", "v1/1#1");
        for (int subtask = 0; subtask < 2; subtask++) {
            assertThat(second.current(REDUCE, subtask).attemptNumber())
                    .isGreaterThan(first.current(REDUCE, subtask).attemptNumber());
            InputGate input = second.current(REDUCE, subtask).task().getInputs(0);
            assertThat(input).as("same range as on the first leader")
                    .isEqualTo(first.current(REDUCE, subtask).task().getInputs(0));
            assertThat(input.getProducersList()).containsExactly(
                    location(FakeCluster.outputPartition(first.current(SOURCE, 0)), "tm-1"),
                    location(FakeCluster.outputPartition(first.current(SOURCE, 1)), "tm-2"));
        }

        second.runLive(REDUCE);

        assertThat(second.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(second.deploymentsOf(SOURCE)).as("finished sources are never deployed again").isEmpty();
        assertThat(second.gateways.events()).as("no split handed out again").isEmpty();
        assertThat(splitsReadInTheEnd(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
        assertThat(second.job.status().getRestoredTasks()).isEqualTo(2);
    }

    @Test
    void everythingFinishedButOneSinkSubtaskRunsOnlyThatSubtask() {
        FakeCluster first = firstLeader(TestJobs.threeStages());
        first.readInTurnsAndFinish(SOURCE);
        first.runLive(REDUCE);
        assertThat(first.job.executions(FINAL)).hasSize(2);
        first.run(first.current(FINAL, 0));
        first.running(first.current(FINAL, 1));

        FakeCluster second = nextLeader(TestJobs.threeStages(), first.finishedPartitions());

        assertThat(second.job.restoredTasks()).isEqualTo(5);
        assertThat(describe(second.gateways.deployments())).containsExactly("v2/1#1");
        assertThat(second.current(FINAL, 1).task().getInputsList()).isEqualTo(first.current(FINAL, 1).task()
                .getInputsList());
        second.run(second.current(FINAL, 1));
        assertThat(second.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(describe(second.gateways.deployments())).containsExactly("v2/1#1");
        assertThat(splitsReadInTheEnd(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
    }

    @Test
    void aPartitionLostWhileTheJobManagerWasAwayRerunsOnlyItsProducerWhichReadsItsSplitsAgain() {
        FakeCluster first = wordCountWithReducesRunning();
        Map<String, String> held = new HashMap<>(first.finishedPartitions());
        String lost = FakeCluster.outputPartition(first.current(SOURCE, 1));
        assertThat(held.remove(lost)).isEqualTo("tm-2");

        FakeCluster second = nextLeader(TestJobs.wordCount(4), held);

        assertThat(second.job.restoredTasks()).isEqualTo(1);
        assertThat(describe(second.gateways.deployments())).as("the producer first, alone").containsExactly("v0/1#1");
        Deployment s1 = second.current(SOURCE, 1);
        second.running(s1);
        assertThat(second.readAllSplits(s1)).as("the splits the lost output was made of")
                .containsExactly(FOUR_SPLITS.get(1), FOUR_SPLITS.get(3));
        second.finish(s1);
        assertThat(describe(second.live())).containsExactly("v1/0#1", "v1/1#1");
        assertThat(second.current(REDUCE, 0).task().getInputs(0).getProducersList()).containsExactly(
                location(FakeCluster.outputPartition(first.current(SOURCE, 0)), "tm-1"),
                location(FakeCluster.outputPartition(s1), s1.tmId()));

        second.runLive(REDUCE);

        assertThat(second.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(second.deploymentsOf(SOURCE, 0)).isEmpty();
        assertThat(splitsReadInTheEnd(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
    }

    @Test
    void partitionsLostAfterTheRecoveryRerunTheirRestoredProducersOneAfterTheOther() {
        FakeCluster first = wordCountWithReducesRunning();
        FakeCluster second = nextLeader(TestJobs.wordCount(4), first.finishedPartitions());
        String s0Output = FakeCluster.outputPartition(first.current(SOURCE, 0));
        String s1Output = FakeCluster.outputPartition(first.current(SOURCE, 1));

        // tm-1 lost s0's restored output: both reduces find it missing.
        second.failMissingPartition(second.current(REDUCE, 0), s0Output);
        second.failMissingPartition(second.current(REDUCE, 1), s0Output);
        assertThat(second.execution(SOURCE, 0).attempt()).isEqualTo(1);
        assertThat(second.execution(SOURCE, 1).state()).isEqualTo(ExecutionState.FINISHED);
        assertThat(second.job.restarts()).as("one failover for one lost partition").isEqualTo(1);
        second.scheduler.advance(DELAY);
        assertThat(describe(second.live())).containsExactly("v0/0#1");
        assertThat(second.readAllSplits(second.current(SOURCE, 0))).as("given back by the reset")
                .containsExactly(FOUR_SPLITS.get(0), FOUR_SPLITS.get(2));
        second.finish(second.current(SOURCE, 0));
        assertThat(describe(second.live())).containsExactly("v1/0#2", "v1/1#2");

        // Then tm-2 lost s1's restored output.
        second.failMissingPartition(second.current(REDUCE, 1), s1Output);
        second.failMissingPartition(second.current(REDUCE, 0), s1Output);
        assertThat(second.execution(SOURCE, 1).attempt()).isEqualTo(1);
        assertThat(second.job.restarts()).isEqualTo(2);
        second.scheduler.advance(DELAY);
        assertThat(describe(second.live())).containsExactly("v0/1#1");
        second.run(second.current(SOURCE, 1));
        assertThat(describe(second.live())).containsExactly("v1/0#3", "v1/1#3");
        assertThat(second.current(REDUCE, 0).task().getInputs(0).getProducersList()).extracting(p -> p.getPartitionId())
                .containsExactly(FakeCluster.outputPartition(second.current(SOURCE, 0)),
                        FakeCluster.outputPartition(second.current(SOURCE, 1)));

        second.runLive(REDUCE);

        assertThat(second.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(splitsReadInTheEnd(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
        for (int subtask = 0; subtask < 2; subtask++) {
            assertThat(second.execution(SOURCE, subtask).attempt()).isEqualTo(1);
        }
    }

    @Test
    void theSameRestoredProducerLosingItsOutputTwiceRunsTwiceMore() {
        FakeCluster first = wordCountWithReducesRunning();
        FakeCluster second = nextLeader(TestJobs.wordCount(4), first.finishedPartitions());

        for (int loss = 1; loss <= 2; loss++) {
            String output = FakeCluster.outputPartition(loss == 1 ? first.current(SOURCE, 0)
                    : second.current(SOURCE, 0));
            second.failMissingPartition(second.current(REDUCE, 0), output);
            second.failMissingPartition(second.current(REDUCE, 1), output);
            second.scheduler.advance(DELAY);
            assertThat(describe(second.live())).containsExactly("v0/0#" + loss);
            second.run(second.current(SOURCE, 0));
        }

        second.runLive(REDUCE);
        assertThat(second.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(second.job.restarts()).isEqualTo(2);
        assertThat(describe(second.deploymentsOf(SOURCE))).containsExactly("v0/0#1", "v0/0#2");
        assertThat(splitsReadInTheEnd(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
    }

    @Test
    void theParallelismDecidedBeforeTheCrashIsKeptEvenIfTheNewLeaderWouldDecideOtherwise() {
        FakeCluster first = wordCountWithReducesRunning();
        // 2 sources x 8 subpartitions x 10 bytes: 160 bytes, at 100 bytes per task 2 reduce tasks.
        assertThat(first.job.executions(REDUCE)).hasSize(2);
        JobSettings smallerTasks = new JobSettings(FakeCluster.SETTINGS.defaultParallelism(),
                FakeCluster.SETTINGS.keyGroups(), 1, 4, 10, 3, DELAY, FakeCluster.SETTINGS.collectMaxBytes());
        assertThat(AdaptiveParallelism.decide(160, smallerTasks.bytesPerTask(), 1, 4, 8))
                .as("what the new leader would decide").isEqualTo(4);

        FakeCluster second = nextLeader(TestJobs.wordCount(4), smallerTasks, first.finishedPartitions());

        assertThat(second.job.executions(REDUCE)).hasSize(2);
        assertThat(second.live(REDUCE)).hasSize(2);
        for (int subtask = 0; subtask < 2; subtask++) {
            assertThat(second.current(REDUCE, subtask).task().getParallelism()).isEqualTo(2);
            assertThat(second.current(REDUCE, subtask).task().getInputsList()).as("same ranges")
                    .isEqualTo(first.current(REDUCE, subtask).task().getInputsList());
        }
        second.runLive(REDUCE);
        assertThat(second.job.state()).isEqualTo(JobMasterState.FINISHED);
    }

    @Test
    void aSmallEnumeratorStateIsLoggedAfterEveryAssignmentSoThatRunningReadersCanBeAdopted() {
        FakeCluster first = firstLeader(TestJobs.wordCount(40));
        first.readInTurnsAndFinish(SOURCE);

        assertThat(events).filteredOn(JobEvent::hasSplitsAssigned).hasSize(40);
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).hasSplitsAssigned()) {
                assertThat(events.get(i + 1).hasCoordinatorState()).as("event %d follows an assignment", i + 1)
                        .isTrue();
            }
        }

        first.live(REDUCE).forEach(first::running);
        FakeCluster second = nextLeader(TestJobs.wordCount(40), first.finishedPartitions());
        assertThat(second.deploymentsOf(SOURCE)).as("both finished sources are kept").isEmpty();
    }

    @Test
    void aLargeEnumeratorStateIsLoggedOncePerSourceFinishNotOncePerSplit() {
        JobGraph graph = TestJobs.threeStages(new io.duraflow.api.connectors.SequenceSource(0, 1_000_000, 10_000));
        FakeCluster first = firstLeader(graph);
        first.readInTurnsAndFinish(SOURCE);

        assertThat(events).filteredOn(JobEvent::hasSplitsAssigned).hasSize(10_000);
        // The state holds every split left: logged at each split it would make the log quadratic.
        assertThat(events).filteredOn(JobEvent::hasCoordinatorState).hasSize(1);
        int state = indexOf(JobEvent::hasCoordinatorState);
        assertThat(state).as("the state precedes the first finish").isLessThan(indexOf(JobEvent::hasExecutionFinished));
        assertThat(events.subList(state, events.size())).as("no split moved after it")
                .noneMatch(JobEvent::hasSplitsAssigned);

        first.live(REDUCE).forEach(first::running);
        FakeCluster second = nextLeader(graph, first.finishedPartitions());
        assertThat(second.deploymentsOf(SOURCE)).as("both finished sources are kept").isEmpty();
    }

    private int indexOf(java.util.function.Predicate<JobEvent> type) {
        for (int i = 0; i < events.size(); i++) {
            if (type.test(events.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no such event in " + events);
    }

    @Test
    void anEmptyEventLogRunsEverythingAsAttemptZero() {
        FakeCluster second = nextLeader(TestJobs.wordCount(4), Map.of());

        assertThat(second.job.restoredTasks()).isZero();
        assertThat(describe(second.gateways.deployments())).containsExactly("v0/0#0", "v0/1#0");
        second.readInTurnsAndFinish(SOURCE);
        assertThat(describe(second.live())).containsExactly("v1/0#0", "v1/1#0");
        second.runLive(REDUCE);

        assertThat(second.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(splitsReadInTheEnd(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
    }

    // ------------------------------------------------------------------ a source that cannot snapshot

    @Test
    void aSourceWithoutSnapshotsThatDidNotFinishIsReadAgainWholeWithANewEnumerator() {
        FakeCluster first = firstLeader(TestJobs.wordCountWithoutSnapshots());
        Deployment s0 = first.current(SOURCE, 0);
        Deployment s1 = first.current(SOURCE, 1);
        first.running(s0);
        first.running(s1);
        assertThat(first.requestSplit(s0)).contains(FOUR_SPLITS.get(0));
        assertThat(first.requestSplit(s1)).contains(FOUR_SPLITS.get(1));
        assertThat(first.readAllSplits(s0)).containsExactly(FOUR_SPLITS.get(2), FOUR_SPLITS.get(3));
        first.finish(s0);
        // The first leader dies while s1 reads split 1.
        assertThat(events).filteredOn(JobEvent::hasCoordinatorState).isNotEmpty()
                .allSatisfy(e -> assertThat(e.getCoordinatorState().getSnapshotUnsupported()).isTrue())
                .allSatisfy(e -> assertThat(e.getCoordinatorState().getState().isEmpty()).isTrue());

        Map<String, String> held = first.finishedPartitions();
        RecoveryPlan plan = RecoveryPlanner.plan(TestJobs.wordCountWithoutSnapshots(), List.copyOf(events), held);
        assertThat(plan.partitionsToRelease()).as("s0's output of the old enumerator")
                .containsExactly(FakeCluster.outputPartition(s0));
        FakeCluster second = nextLeader(TestJobs.wordCountWithoutSnapshots(), held);

        assertThat(second.job.restoredTasks()).isZero();
        assertThat(describe(second.gateways.deployments())).containsExactly("v0/0#1", "v0/1#1");
        second.readInTurnsAndFinish(SOURCE);
        second.runLive(REDUCE);

        assertThat(second.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(splitsReadInTheEnd(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
    }

    @Test
    void aSourceWithoutSnapshotsThatFinishedIsKeptAndALaterLossRereadsOnlyTheLostSplits() {
        FakeCluster first = firstLeader(TestJobs.wordCountWithoutSnapshots());
        first.readInTurnsAndFinish(SOURCE);
        first.live(REDUCE).forEach(first::running);

        FakeCluster second = nextLeader(TestJobs.wordCountWithoutSnapshots(), first.finishedPartitions());
        assertThat(second.job.restoredTasks()).isEqualTo(2);
        assertThat(describe(second.gateways.deployments())).containsExactly("v1/0#1", "v1/1#1");

        // After the recovery tm-1 loses s0's output: s0 reads again what it read, and nothing else.
        String lost = FakeCluster.outputPartition(first.current(SOURCE, 0));
        second.failMissingPartition(second.current(REDUCE, 0), lost);
        second.failMissingPartition(second.current(REDUCE, 1), lost);
        second.scheduler.advance(DELAY);
        assertThat(describe(second.live())).containsExactly("v0/0#1");
        second.running(second.current(SOURCE, 0));
        assertThat(second.readAllSplits(second.current(SOURCE, 0)))
                .containsExactly(FOUR_SPLITS.get(0), FOUR_SPLITS.get(2));
        second.finish(second.current(SOURCE, 0));
        second.runLive(REDUCE);

        assertThat(second.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(splitsReadInTheEnd(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
    }

    @Test
    void aSourceWithoutSnapshotsCannotBeRecoveredWhileAConsumerKeepsWhatItReadOfIt() {
        FakeCluster first = firstLeader(TestJobs.wordCountWithoutSnapshots());
        first.readInTurnsAndFinish(SOURCE);
        first.run(first.current(REDUCE, 0));
        first.running(first.current(REDUCE, 1));
        Map<String, String> held = new HashMap<>(first.finishedPartitions());
        held.remove(FakeCluster.outputPartition(first.current(SOURCE, 1)));

        assertThatThrownBy(() -> RecoveryPlanner.plan(TestJobs.wordCountWithoutSnapshots(), List.copyOf(events), held))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("v1/0 finished reading its old output");
    }

    @Test
    void aRecoveredJobRecoversAgainFromTheEventsOfBothLeaders() {
        FakeCluster first = wordCountWithReducesRunning();
        Map<String, String> held = new HashMap<>(first.finishedPartitions());
        held.remove(FakeCluster.outputPartition(first.current(SOURCE, 1)));
        FakeCluster second = nextLeader(TestJobs.wordCount(4), held);
        Deployment s1 = second.current(SOURCE, 1);
        second.running(s1);
        assertThat(second.requestSplit(s1)).contains(FOUR_SPLITS.get(1));
        // The second leader dies too, with s1#1 holding split 1 and split 3 still in the enumerator.
        int highestBefore = highestDeployedAttempt(SOURCE, 1);

        FakeCluster third = nextLeader(TestJobs.wordCount(4), held);

        assertThat(third.job.restoredTasks()).isEqualTo(1);
        assertThat(describe(third.gateways.deployments())).containsExactly("v0/1#2");
        assertThat(third.readAllSplits(third.current(SOURCE, 1)))
                .containsExactlyInAnyOrder(FOUR_SPLITS.get(1), FOUR_SPLITS.get(3));
        third.finish(third.current(SOURCE, 1));
        assertThat(describe(third.live())).containsExactly("v1/0#2", "v1/1#2");
        third.runLive(REDUCE);

        assertThat(third.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(splitsReadInTheEnd(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
        assertThat(third.execution(SOURCE, 1).attempt()).isGreaterThan(highestBefore);
    }
}
