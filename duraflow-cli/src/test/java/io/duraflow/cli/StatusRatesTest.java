package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.VertexRates;
import org.junit.jupiter.api.Test;

/** The per-vertex rates line of {@code duraflow status ID} for running streaming jobs. */
class StatusRatesTest {
    @Test
    void showsRecordRatesAndTimesAsPercentages() {
        VertexRates rates = VertexRates.newBuilder().setRecordsInPerSecond(12_000.4).setRecordsOutPerSecond(11_999.6)
                .setBusyMsPerSecond(354).setBackpressuredMsPerSecond(596).setIdleMsPerSecond(50).setSubtasks(2)
                .build();

        assertThat(JobRunner.ratesLine(rates))
                .isEqualTo("    12,000 in/s, 12,000 out/s, busy 35%, backpressured 60%, idle 5% (2 subtasks)");
    }

    @Test
    void oneSubtaskIsSingular() {
        assertThat(JobRunner.ratesLine(VertexRates.newBuilder().setIdleMsPerSecond(1000).setSubtasks(1).build()))
                .isEqualTo("    0 in/s, 0 out/s, busy 0%, backpressured 0%, idle 100% (1 subtask)");
    }
}
