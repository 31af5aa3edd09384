package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.duraflow.rpc.proto.TaskMetricsSample;
import org.junit.jupiter.api.Test;

/** The rules of {@link TaskRates}, one test each. */
class TaskRatesTest {
    private static final long SECOND = 1_000_000_000L;

    private static TaskMetricsSample sample(long atNanos, long in, long out, long idleNanos, long backpressuredNanos) {
        return TaskMetricsSample.newBuilder().setSampledAtNanos(atNanos).setRecordsIn(in).setRecordsOut(out)
                .setIdleNanos(idleNanos).setBackpressuredNanos(backpressuredNanos).build();
    }

    @Test
    void rule2and3_theRateIsTheDifferenceOverTheIntervalAndBusyIsWhatIsLeft() {
        TaskRates.Rate rate = TaskRates.between(sample(10 * SECOND, 1_000, 500, SECOND, 0),
                sample(12 * SECOND, 21_000, 4_500, SECOND + 400_000_000L, 1_000_000_000L));

        assertThat(rate.recordsInPerSecond()).isCloseTo(10_000, within(1e-6));
        assertThat(rate.recordsOutPerSecond()).isCloseTo(2_000, within(1e-6));
        assertThat(rate.idleMsPerSecond()).isCloseTo(200, within(1e-6));
        assertThat(rate.backpressuredMsPerSecond()).isCloseTo(500, within(1e-6));
        assertThat(rate.busyMsPerSecond()).isCloseTo(300, within(1e-6));
    }

    @Test
    void rule3_busyTimeIsClampedWhenWaitsOverlapTheSampleBoundaries() {
        // A wait that began before the earlier sample is counted whole when it ends: more than the interval.
        TaskRates.Rate rate = TaskRates.between(sample(0, 0, 0, 0, 0), sample(SECOND, 0, 0, 0, SECOND + SECOND / 10));

        assertThat(rate.backpressuredMsPerSecond()).isEqualTo(1000);
        assertThat(rate.busyMsPerSecond()).isZero();
    }

    @Test
    void rule2_oneSampleGivesNoRateAndARepeatedSampleIsIgnored() {
        TaskRates rates = new TaskRates();
        rates.record(1, 0, 0, sample(SECOND, 10, 10, 0, 0));
        assertThat(rates.rate(1, 0, 0)).isNull();

        rates.record(1, 0, 0, sample(2 * SECOND, 110, 60, 0, 0));
        rates.record(1, 0, 0, sample(2 * SECOND, 110, 60, 0, 0));

        assertThat(rates.rate(1, 0, 0).recordsInPerSecond()).isCloseTo(100, within(1e-6));
    }

    @Test
    void rule2_aNewAttemptStartsOverAndTheOldAttemptHasNoRateAnyMore() {
        TaskRates rates = new TaskRates();
        rates.record(1, 0, 0, sample(SECOND, 0, 0, 0, 0));
        rates.record(1, 0, 0, sample(2 * SECOND, 100, 100, 0, 0));

        rates.record(1, 0, 1, sample(3 * SECOND, 5, 5, 0, 0));

        assertThat(rates.rate(1, 0, 0)).isNull();
        assertThat(rates.rate(1, 0, 1)).isNull();
        rates.record(1, 0, 1, sample(4 * SECOND, 55, 5, 0, 0));
        assertThat(rates.rate(1, 0, 1).recordsInPerSecond()).isCloseTo(50, within(1e-6));
    }

    @Test
    void rule4_aVertexSumsRecordRatesAndAveragesTimesOverItsRunningSubtasksWithARate() {
        TaskRates rates = new TaskRates();
        Execution[] subtasks = {running(0), running(1), running(2)};
        rates.record(3, 0, 0, sample(0, 0, 0, 0, 0));
        rates.record(3, 0, 0, sample(SECOND, 1_000, 2_000, 0, 800_000_000L));
        rates.record(3, 1, 0, sample(0, 0, 0, 0, 0));
        rates.record(3, 1, 0, sample(2 * SECOND, 4_000, 0, SECOND, 0));
        // Subtask 2 reported once only: no rate yet, so it is not averaged in.
        rates.record(3, 2, 0, sample(0, 0, 0, 0, 0));

        var vertex = rates.vertexRates(3, subtasks);

        assertThat(vertex.getSubtasks()).isEqualTo(2);
        assertThat(vertex.getRecordsInPerSecond()).isCloseTo(3_000, within(1e-6));
        assertThat(vertex.getRecordsOutPerSecond()).isCloseTo(2_000, within(1e-6));
        assertThat(vertex.getBackpressuredMsPerSecond()).isCloseTo(400, within(1e-6));
        assertThat(vertex.getIdleMsPerSecond()).isCloseTo(250, within(1e-6));
        assertThat(vertex.getBusyMsPerSecond()).isCloseTo(350, within(1e-6));
        assertThat(rates.vertexRates(4, new Execution[] {running(0)})).as("no samples").isNull();
        assertThat(rates.vertexRates(3, null)).as("parallelism not decided").isNull();
    }

    private static Execution running(int subtask) {
        Execution execution = new Execution("job-1", 3, subtask);
        execution.transition(ExecutionState.DEPLOYING, "test");
        execution.transition(ExecutionState.RUNNING, "test");
        return execution;
    }
}
