package io.duraflow.jobmanager.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import io.duraflow.jobmanager.dispatcher.EarlierFinishes.Accept;
import io.duraflow.jobmanager.dispatcher.EarlierFinishes.Decision;
import io.duraflow.jobmanager.dispatcher.EarlierFinishes.Ignore;
import io.duraflow.jobmanager.dispatcher.EarlierFinishes.Standing;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.ExecutionsReset;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.jobmanager.events.proto.RunStarted;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.jobmanager.recovery.ExecutionKey;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.jobmanager.recovery.RecoveryPlanner;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rules of {@link EarlierFinishes}, one test each, on a three-stage job's log. */
class EarlierFinishesTest {
    private static final String JOB = "job-1";
    private static final String OLD_SESSION = "session-1";
    private static final String SESSION = "session-2";
    private static final String TM = "tm-1";
    private static final String TM_ADDRESS = "tm-1.test:6122";
    private static final int SOURCE = 0;
    private static final int MIDDLE = 1;
    private static final int LAST = 2;

    /** Source (2 tasks) -> edge 0 -> middle (2 tasks, fixed) -> edge 1 -> last (decided at runtime) -> collect. */
    private final JobGraph graph = threeStages();

    private static JobGraph threeStages() {
        JobBuilder job = new JobBuilder("three-stages");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(2)
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    // ------------------------------------------------------------------ events and reports

    private static JobEvent initialized(int vertex, int parallelism, Integer... bounds) {
        return JobEvent.newBuilder().setVertexInitialized(VertexInitialized.newBuilder().setVertex(vertex)
                .setParallelism(parallelism).addAllRangeBounds(List.of(bounds))).build();
    }

    private static JobEvent finished(int vertex, int subtask, int attempt, int edge) {
        return JobEvent.newBuilder().setExecutionFinished(ExecutionFinished.newBuilder().setVertex(vertex)
                .setSubtask(subtask).setAttempt(attempt).setTmId(TM).setTmAddress(TM_ADDRESS)
                .addPartitions(ProducedPartition.newBuilder().setEdgeId(edge)
                        .setPartitionId(partition(vertex, subtask, attempt, edge)))).build();
    }

    private static JobEvent reset(int vertex, int subtask, int newAttempt) {
        return JobEvent.newBuilder().setExecutionsReset(ExecutionsReset.newBuilder().addExecutions(
                ExecutionRef.newBuilder().setVertex(vertex).setSubtask(subtask).setNewAttempt(newAttempt))).build();
    }

    private static String partition(int vertex, int subtask, int attempt, int edge) {
        return JOB + "-v" + vertex + "-s" + subtask + "-a" + attempt + "-e" + edge;
    }

    /** The sources finished and the middle vertex was deployed; nothing of it finished in the log. */
    private static List<JobEvent> middleDeployed() {
        return new ArrayList<>(List.of(initialized(SOURCE, 2, 0, 1), finished(SOURCE, 0, 0, 0),
                finished(SOURCE, 1, 0, 0), initialized(MIDDLE, 2, 0, 64, 128)));
    }

    /** Middle subtask's attempt finished on {@link #TM}, with its partition on edge 1 and a counter. */
    private static TaskStateUpdate.Builder report(int vertex, int subtask, int attempt) {
        return TaskStateUpdate.newBuilder().setJmSessionId(OLD_SESSION).setTmId(TM).setState(TaskState.FINISHED)
                .setAttempt(AttemptId.newBuilder().setJobId(JOB).setVertex(vertex).setSubtask(subtask)
                        .setAttempt(attempt))
                .addOutputs(SubpartitionSizes.newBuilder().setEdgeId(1).setPartitionId(partition(vertex, subtask,
                        attempt, 1)).addBytes(10).addBytes(20).setRecords(3))
                .setRecordsIn(7).setRecordsOut(3).putCounters("groups", 3);
    }

    private Decision decide(TaskStateUpdate.Builder report, List<JobEvent> events) {
        return EarlierFinishes.decide(report.build(), SESSION, TM, TM_ADDRESS, Standing.RECOVERING, graph, events);
    }

    private static String ignored(Decision decision) {
        assertThat(decision).isInstanceOf(Ignore.class);
        return ((Ignore) decision).reason();
    }

    // ------------------------------------------------------------------ accepted

    @Test
    void theLatestAttemptWhoseFinishIsNotLoggedIsAcceptedAsTheFinishTheJobMasterWouldLog() {
        Decision decision = decide(report(MIDDLE, 0, 0), middleDeployed());

        assertThat(decision).isInstanceOf(Accept.class);
        ExecutionFinished event = ((Accept) decision).event();
        assertThat(event.getVertex()).isEqualTo(MIDDLE);
        assertThat(event.getSubtask()).isZero();
        assertThat(event.getAttempt()).isZero();
        assertThat(event.getTmId()).isEqualTo(TM);
        assertThat(event.getTmAddress()).isEqualTo(TM_ADDRESS);
        assertThat(event.getRecordsIn()).isEqualTo(7);
        assertThat(event.getRecordsOut()).isEqualTo(3);
        assertThat(event.getCountersMap()).containsEntry("groups", 3L);
        assertThat(event.getPartitionsList()).singleElement().satisfies(p -> {
            assertThat(p.getEdgeId()).isEqualTo(1);
            assertThat(p.getPartitionId()).isEqualTo(partition(MIDDLE, 0, 0, 1));
            assertThat(p.getSubpartitionBytesList()).containsExactly(10L, 20L);
            assertThat(p.getRecords()).isEqualTo(3);
        });
    }

    @Test
    void theLatestAttemptAfterAResetIsAccepted() {
        List<JobEvent> events = middleDeployed();
        events.add(reset(MIDDLE, 0, 1));

        assertThat(decide(report(MIDDLE, 0, 1), events)).isInstanceOf(Accept.class);
    }

    @Test
    void aSinkFinishCarriesItsCollectedRecords() {
        List<JobEvent> events = middleDeployed();
        events.add(finished(MIDDLE, 0, 0, 1));
        events.add(finished(MIDDLE, 1, 0, 1));
        events.add(initialized(LAST, 1, 0, 128));
        TaskStateUpdate.Builder sink = report(LAST, 0, 0).clearOutputs().addCollected(CollectedResult.newBuilder()
                .setName("sums").setSubtask(0).setRecords(2).setData(ByteString.copyFrom(new byte[] {1, 7, 1, 8})));

        Decision decision = decide(sink, events);

        assertThat(decision).isInstanceOf(Accept.class);
        assertThat(((Accept) decision).event().getCollectedList()).singleElement().satisfies(c -> {
            assertThat(c.getName()).isEqualTo("sums");
            assertThat(c.getRecords()).isEqualTo(2);
            assertThat(c.getData().toByteArray()).containsExactly(1, 7, 1, 8);
        });
    }

    @Test
    void theRecoveryPlanKeepsAnAcceptedFinishWhoseOutputIsHeld() {
        List<JobEvent> events = middleDeployed();
        events.add(JobEvent.newBuilder().setExecutionFinished(((Accept) decide(report(MIDDLE, 0, 0), events)).event())
                .build());
        Map<String, String> held = Map.of(partition(SOURCE, 0, 0, 0), TM, partition(SOURCE, 1, 0, 0), TM,
                partition(MIDDLE, 0, 0, 1), TM);

        RecoveryPlan plan = RecoveryPlanner.plan(graph, events, held);

        assertThat(plan.restored()).containsKey(new ExecutionKey(MIDDLE, 0));
        assertThat(plan.nextAttempts()).containsOnlyKeys(new ExecutionKey(MIDDLE, 1));
    }

    // ------------------------------------------------------------------ ignored

    @Test
    void anAttemptResetAfterwardsIsStale() {
        List<JobEvent> events = middleDeployed();
        events.add(reset(MIDDLE, 0, 1));

        assertThat(ignored(decide(report(MIDDLE, 0, 0), events))).contains("stale", "#1");
    }

    @Test
    void anAttemptTheLogDoesNotKnowIsIgnored() {
        // Its reset was lost with the earlier leader: the log cannot vouch for it.
        assertThat(ignored(decide(report(MIDDLE, 0, 1), middleDeployed()))).contains("does not know attempt #1");
    }

    @Test
    void aFinishAlreadyLoggedIsIgnored() {
        List<JobEvent> events = middleDeployed();
        events.add(finished(MIDDLE, 0, 0, 1));

        assertThat(ignored(decide(report(MIDDLE, 0, 0), events))).contains("logged already");
    }

    @Test
    void anUnknownVertexOrSubtaskIsIgnored() {
        assertThat(ignored(decide(report(7, 0, 0), middleDeployed()))).contains("no vertex 7");
        assertThat(ignored(decide(report(MIDDLE, 2, 0), middleDeployed()))).contains("2 subtasks", "not subtask 2");
        assertThat(ignored(decide(report(LAST, 0, 0).clearOutputs(), middleDeployed())))
                .contains("never laid out vertex 2");
    }

    @Test
    void aJobThatIsNotWaitingForRecoveryIgnoresIt() {
        for (Standing standing : List.of(Standing.UNKNOWN, Standing.ENDED, Standing.RUNNING)) {
            assertThat(ignored(EarlierFinishes.decide(report(MIDDLE, 0, 0).build(), SESSION, TM, TM_ADDRESS,
                    standing, null, List.of()))).isEqualTo(standing.why);
        }
    }

    @Test
    void aSourceTaskIsIgnored() {
        List<JobEvent> events = List.of(initialized(SOURCE, 2, 0, 1));
        TaskStateUpdate.Builder source = report(SOURCE, 0, 0).clearOutputs().addOutputs(SubpartitionSizes.newBuilder()
                .setEdgeId(0).setPartitionId(partition(SOURCE, 0, 0, 0)));

        assertThat(ignored(decide(source, events))).contains("source");
    }

    @Test
    void aLogWithARunStartedIgnoresIt() {
        List<JobEvent> events = new ArrayList<>();
        events.add(JobEvent.newBuilder().setRunStarted(RunStarted.newBuilder().setReason("damaged log")).build());
        events.addAll(middleDeployed());

        assertThat(ignored(decide(report(MIDDLE, 0, 0), events))).contains("restarted from scratch");
    }

    @Test
    void aVertexLaidOutAgainDifferentlyIgnoresIt() {
        List<JobEvent> events = middleDeployed();
        events.add(initialized(MIDDLE, 2, 0, 32, 128));

        assertThat(ignored(decide(report(MIDDLE, 0, 0), events))).contains("in 2 ways");
        events.set(events.size() - 1, initialized(MIDDLE, 2, 0, 64, 128));
        assertThat(decide(report(MIDDLE, 0, 0), events)).as("the same layout again").isInstanceOf(Accept.class);
    }

    @Test
    void outputsThatDoNotFitTheVertexAreIgnored() {
        assertThat(ignored(decide(report(MIDDLE, 0, 0).clearOutputs(), middleDeployed()))).contains("edges [1]");
        assertThat(ignored(decide(report(MIDDLE, 0, 0).addOutputs(SubpartitionSizes.newBuilder().setEdgeId(0)
                .setPartitionId("elsewhere")), middleDeployed()))).contains("edge 0");
    }

    @Test
    void aReportOfThisLeadershipOrAnotherTaskManagerOrNotAFinishIsIgnored() {
        assertThat(ignored(decide(report(MIDDLE, 0, 0).setJmSessionId(SESSION), middleDeployed())))
                .contains("normal path");
        assertThat(ignored(decide(report(MIDDLE, 0, 0).setTmId("tm-2"), middleDeployed()))).contains("tm-2");
        assertThat(ignored(decide(report(MIDDLE, 0, 0).setState(TaskState.FAILED), middleDeployed())))
                .contains("FAILED");
    }
}
