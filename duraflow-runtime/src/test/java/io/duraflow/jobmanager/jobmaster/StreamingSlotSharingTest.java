package io.duraflow.jobmanager.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.plan.JobGraph;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slot sharing of a streaming job: one slot runs one subtask of every vertex of a slot sharing
 * group, a stage can be put in a group of its own, and a job that cannot get its slots says what
 * it waits for.
 */
class StreamingSlotSharingTest {
    @TempDir
    Path root;

    /** source (p) -> keyed reduce (p) -> collect; the reduce in its own group when {@code group} is set. */
    private static JobGraph twoStages(int parallelism, String group) {
        JobBuilder job = new JobBuilder("two-stages");
        var reduced = job.fromSource("numbers", new RecordingSequenceSource(0, 100, parallelism)).parallelism(parallelism)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(parallelism);
        if (group != null) {
            reduced.slotSharingGroup(group);
        }
        reduced.collect("sums");
        return JobGraph.compile(job.plan(), parallelism, RuntimeMode.STREAMING);
    }

    private FakeCluster started(JobGraph graph, FakeSlotPool slots) {
        RecordingSequenceSource.clear();
        FakeCluster cluster = new FakeCluster(graph, FakeCluster.SETTINGS, slots, FakeCluster.SESSION);
        cluster.enableCheckpoints(root);
        cluster.startStreaming();
        return cluster;
    }

    @Test
    void aJobOfTwoStagesAtParallelismFourRunsInFourSlots() {
        FakeSlotPool slots = FakeSlotPool.of(1, 4);
        FakeCluster cluster = started(twoStages(4, null), slots);

        assertThat(cluster.live()).hasSize(8);
        assertThat(slots.usedTotal()).isEqualTo(4);
        assertThat(cluster.job.status().getWaitingFor()).isEmpty();
        Map<Integer, List<String>> slotBySubtask = cluster.live().stream().collect(Collectors.groupingBy(
                Deployment::subtask, Collectors.mapping(d -> d.task().getSlot(), Collectors.toList())));
        slotBySubtask.forEach((subtask, names) -> assertThat(names).as("subtask %d of both stages", subtask)
                .containsExactly(FakeCluster.JOB_ID + "/default/" + subtask, FakeCluster.JOB_ID + "/default/" + subtask));

        cluster.job.cancel();
        cluster.scheduler.runDue();
        cluster.gateways.deployments().forEach(cluster::canceled);
        cluster.scheduler.runDue();
        assertThat(slots.usedTotal()).as("every slot freed once").isZero();
        assertThat(slots.invalidFrees()).isEmpty();
    }

    @Test
    void aStageInAGroupOfItsOwnTakesSlotsOfItsOwnAndTheJobSaysWhatItWaitsFor() {
        FakeSlotPool slots = FakeSlotPool.of(1, 4);
        FakeCluster cluster = started(twoStages(4, "heavy"), slots);

        assertThat(cluster.live()).as("all or nothing: 8 slots needed, 4 free").isEmpty();
        assertThat(cluster.job.status().getWaitingFor())
                .isEqualTo("the job waits for 8 free task slots to deploy its 8 tasks together, 4 are free: add"
                        + " TaskManagers (or raise taskmanager.slots) or lower the job's parallelism");

        slots.addTaskManager("tm-2", 4);
        cluster.job.schedule();
        cluster.scheduler.runDue();

        assertThat(cluster.live()).hasSize(8);
        assertThat(cluster.job.status().getWaitingFor()).isEmpty();
        assertThat(cluster.live(1)).extracting(d -> d.task().getSlot()).allMatch(s -> s.startsWith("job-1/heavy/"));
        assertThat(slots.usedTotal()).as("a group of its own: slots of its own").isEqualTo(8);
    }

    @Test
    void aRestartRedeploysIntoTheSameNumberOfSlots() {
        FakeSlotPool slots = FakeSlotPool.of(1, 4);
        FakeCluster cluster = started(twoStages(4, null), slots);
        cluster.live().forEach(cluster::running);
        cluster.scheduler.runDue();

        cluster.fail(cluster.current(1, 2), "boom");
        cluster.scheduler.runDue();
        cluster.live().forEach(cluster::canceled);
        cluster.scheduler.advance(FakeCluster.SETTINGS.restartDelayMs());
        cluster.scheduler.runDue();

        assertThat(cluster.live()).hasSize(8);
        assertThat(cluster.live()).allMatch(d -> d.attemptNumber() == 1);
        assertThat(slots.usedTotal()).isEqualTo(4);
        assertThat(slots.invalidFrees()).isEmpty();
    }
}
