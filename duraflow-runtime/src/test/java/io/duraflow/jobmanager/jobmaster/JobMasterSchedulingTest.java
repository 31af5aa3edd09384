package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import static io.duraflow.jobmanager.jobmaster.TestJobs.REDUCE;
import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.PartitionLocation;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A batch job without failures: when tasks are deployed, with which inputs, and how it ends. */
class JobMasterSchedulingTest {

    @Test
    void wordCountDeploysTheReduceAfterAllSourcesFinishedAndSizesItFromTheirBytes() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 2));

        List<Deployment> sources = cluster.deploymentsOf(SOURCE);
        assertThat(sources).extracting(Deployment::subtask).containsExactly(0, 1);
        assertThat(sources).extracting(Deployment::tmId).containsExactly("tm-1", "tm-2");
        assertThat(sources).allSatisfy(d -> {
            assertThat(d.task().getInputsList()).isEmpty();
            assertThat(d.task().getOutputsList()).singleElement()
                    .satisfies(out -> assertThat(out.getSubpartitions()).isEqualTo(8));
            assertThat(d.task().getJobClass()).isEqualTo("test.Job");
            assertThat(d.task().getFingerprint()).isEqualTo(cluster.graph.fingerprint());
        });
        assertThat(cluster.job.executions(REDUCE)).as("reduce tasks before their input size is known").isNull();

        Deployment s0 = sources.get(0);
        Deployment s1 = sources.get(1);
        long[] s0Bytes = {100, 0, 0, 0, 30, 30, 30, 30};
        long[] s1Bytes = {0, 0, 0, 0, 20, 20, 20, 20};
        cluster.run(s0, s0Bytes);
        cluster.running(s1);
        cluster.readAllSplits(s1);
        assertThat(cluster.deploymentsOf(REDUCE)).as("reduce deployed while a source still runs").isEmpty();

        cluster.finish(s1, s1Bytes);

        // 300 bytes at 100 bytes per task: 3 tasks.
        List<Deployment> reduces = cluster.deploymentsOf(REDUCE).stream()
                .sorted(Comparator.comparingInt(Deployment::subtask)).toList();
        assertThat(reduces).extracting(Deployment::subtask).containsExactly(0, 1, 2);
        assertThat(reduces).allSatisfy(d -> assertThat(d.task().getParallelism()).isEqualTo(3));
        List<InputGate> gates = reduces.stream().map(d -> d.task().getInputs(0)).toList();
        assertThat(reduces).allSatisfy(d -> assertThat(d.task().getInputsCount()).isEqualTo(1));
        assertThat(gates).allSatisfy(gate -> {
            assertThat(gate.getEdgeId()).isZero();
            assertThat(gate.getProducersList()).containsExactly(
                    location(FakeCluster.outputPartition(s0), "tm-1"),
                    location(FakeCluster.outputPartition(s1), "tm-2"));
        });
        assertContiguousCover(gates, 8);
        // The ranges split the bytes evenly: subpartition 0 alone holds 100 of the 300 bytes.
        for (InputGate gate : gates) {
            long bytes = 0;
            for (int sub = gate.getSubpartitionFrom(); sub < gate.getSubpartitionTo(); sub++) {
                bytes += s0Bytes[sub] + s1Bytes[sub];
            }
            assertThat(bytes).as("bytes read by the range [%d, %d)", gate.getSubpartitionFrom(),
                    gate.getSubpartitionTo()).isEqualTo(100);
        }

        cluster.run(reduces.get(0));
        cluster.run(reduces.get(1));
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        assertThat(cluster.terminations).isEmpty();
        cluster.run(reduces.get(2));

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.terminations).containsExactly(JobMasterState.FINISHED);
        assertThat(cluster.gateways.releases()).containsExactlyInAnyOrder(
                new Release("tm-1", FakeCluster.JOB_ID, List.of()),
                new Release("tm-2", FakeCluster.JOB_ID, List.of()));
        assertThat(cluster.slots.usedTotal()).isZero();
        assertThat(cluster.slots.invalidFrees()).isEmpty();
        assertThat(cluster.gateways.deployments()).hasSize(5);
        assertThat(cluster.job.status().getVerticesList())
                .extracting(v -> v.getParallelism() + "/" + v.getFinished() + "/" + v.getAttempts())
                .containsExactly("2/2/2", "3/3/3");
    }

    @ParameterizedTest(name = "{0} bytes per source subpartition -> {1} reduce tasks")
    @CsvSource({
            "0, 1", // nothing to read: the minimum
            "1, 1", // 16 bytes: ceil(16 / 100)
            "7, 2", // 112 bytes
            "12, 2", // 192 bytes
            "13, 3", // 208 bytes
            "25, 4", // 400 bytes: exactly the maximum
            "1000000, 4", // far more than 4 tasks' worth: the maximum
    })
    void adaptiveParallelismIsTheInputBytesPerTaskClampedToTheBounds(long bytesPerSubpartition, int expected) {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 4));
        long[] bytes = new long[8];
        Arrays.fill(bytes, bytesPerSubpartition);
        cluster.runLive(SOURCE, bytes);

        assertThat(cluster.job.executions(REDUCE)).hasSize(expected);
        List<Deployment> reduces = cluster.deploymentsOf(REDUCE);
        assertThat(reduces).hasSize(expected);
        assertContiguousCover(reduces.stream().map(d -> d.task().getInputs(0)).toList(), 8);
    }

    @Test
    void withOneSlotOneTaskRunsAtATimeAndAFreedSlotTakesTheNext() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(1, 1));

        assertThat(cluster.deploymentsOf(SOURCE)).extracting(Deployment::subtask).containsExactly(0);
        cluster.running(cluster.current(SOURCE, 0));
        cluster.readAllSplits(cluster.current(SOURCE, 0));
        assertThat(cluster.gateways.deployments()).as("deployments while the only slot is busy").hasSize(1);
        assertThat(cluster.execution(SOURCE, 1).state()).isEqualTo(ExecutionState.CREATED);

        cluster.finish(cluster.current(SOURCE, 0), 20, 20, 20, 20, 20, 20, 20, 20);
        assertThat(cluster.deploymentsOf(SOURCE)).extracting(Deployment::subtask).containsExactly(0, 1);
        assertThat(cluster.slots.used("tm-1")).isEqualTo(1);

        cluster.run(cluster.current(SOURCE, 1), 0, 0, 0, 0, 0, 0, 0, 0);
        // 160 bytes: two reduce tasks, one after the other.
        assertThat(cluster.job.executions(REDUCE)).hasSize(2);
        assertThat(cluster.deploymentsOf(REDUCE)).extracting(Deployment::subtask).containsExactly(0);
        cluster.run(cluster.current(REDUCE, 0));
        assertThat(cluster.deploymentsOf(REDUCE)).extracting(Deployment::subtask).containsExactly(0, 1);
        cluster.run(cluster.current(REDUCE, 1));

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.slots.allocations()).isEqualTo(4);
        assertThat(cluster.slots.usedTotal()).isZero();
        assertThat(cluster.slots.invalidFrees()).isEmpty();
    }

    @Test
    void aTaskWaitsForASlotWithoutBeingDeployedTwice() {
        FakeCluster cluster = FakeCluster.started(TestJobs.sourceOnly(3, 6), FakeSlotPool.of(1, 2));
        assertThat(cluster.deploymentsOf(SOURCE)).extracting(Deployment::subtask).containsExactly(0, 1);

        cluster.job.schedule();
        cluster.scheduler.advance(10_000);
        assertThat(cluster.gateways.deployments()).as("nothing frees a slot, so nothing new runs").hasSize(2);

        cluster.run(cluster.current(SOURCE, 1));
        assertThat(cluster.deploymentsOf(SOURCE)).extracting(Deployment::subtask).containsExactly(0, 1, 2);
        cluster.runLive(SOURCE);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.gateways.deployments()).hasSize(3);
    }

    static PartitionLocation location(String partitionId, String tmId) {
        return PartitionLocation.newBuilder().setPartitionId(partitionId).setTmId(tmId)
                .setTmAddress(FakeSlotPool.addressOf(tmId)).build();
    }

    /** Task i reads [from, to); together the ranges cover [0, keyGroups) in order, none empty. */
    static void assertContiguousCover(List<InputGate> gatesBySubtask, int keyGroups) {
        int expectedFrom = 0;
        for (InputGate gate : gatesBySubtask) {
            assertThat(gate.getSubpartitionFrom()).as("start of a range").isEqualTo(expectedFrom);
            assertThat(gate.getSubpartitionTo()).as("end of the range from %d", expectedFrom)
                    .isGreaterThan(gate.getSubpartitionFrom());
            expectedFrom = gate.getSubpartitionTo();
        }
        assertThat(expectedFrom).as("end of the last range").isEqualTo(keyGroups);
    }
}
