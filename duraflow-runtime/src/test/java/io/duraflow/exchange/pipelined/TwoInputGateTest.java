package io.duraflow.exchange.pipelined;

import static io.duraflow.exchange.pipelined.NetworkTestSupport.settings;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.writeLong;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.exchange.pipelined.PipelinedInputGate.InputStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gate over the channels of two inputs, as a keyed co-process task reads them: barriers align
 * over the channels of both, event time is the lowest watermark over both, and the inputs end in
 * whichever order their channels end, the end of time coming only when both ended.
 */
@Timeout(60)
class TwoInputGateTest {
    private static final int BUFFER = 1024;
    private final NetworkTestSupport.ManualNanoClock clock = new NetworkTestSupport.ManualNanoClock();
    private final NetworkBufferPool network = new NetworkBufferPool(64 * BUFFER, BUFFER);
    /** A and B feed channels 0 and 1, of input 0; C feeds channel 2, of input 1. */
    private final PipelinedResultPartition a = producer("A");
    private final PipelinedResultPartition b = producer("B");
    private final PipelinedResultPartition c = producer("C");
    private final PipelinedInputGateTest.Recorder recorder = new PipelinedInputGateTest.Recorder();

    private PipelinedResultPartition producer(String id) {
        return new PipelinedResultPartition(id, 1, network, settings(4, 0, Duration.ofHours(1)), clock, p -> { });
    }

    private PipelinedInputGate gate() throws Exception {
        PipelinedInputGate gate = new PipelinedInputGate(List.of(
                new PipelinedInputGate.Channel(0, new LocalInputChannel(a, 0)),
                new PipelinedInputGate.Channel(0, new LocalInputChannel(b, 0)),
                new PipelinedInputGate.Channel(1, new LocalInputChannel(c, 0))));
        gate.start();
        return gate;
    }

    private static NetworkEvent.CheckpointBarrier barrier(long id) {
        return new NetworkEvent.CheckpointBarrier(id, 1000 + id, NetworkEvent.CheckpointKind.CHECKPOINT);
    }

    private static void send(PipelinedResultPartition producer, long... values) throws Exception {
        for (long value : values) {
            writeLong(producer, 0, value);
        }
        producer.flushAll();
    }

    private InputStatus drain(PipelinedInputGate gate) throws Exception {
        InputStatus status;
        do {
            status = gate.pollNext(recorder);
        } while (status == InputStatus.MORE_AVAILABLE);
        return status;
    }

    @Test
    void aBarrierAlignsOverTheChannelsOfBothInputs() throws Exception {
        PipelinedInputGate gate = gate();
        a.broadcastEvent(barrier(1));
        b.broadcastEvent(barrier(1));
        send(a, 1);
        send(b, 2);
        send(c, 100);
        drain(gate);

        assertThat(recorder.log).as("input 1 has not delivered the barrier").containsExactly("1:[100]");
        assertThat(gate.isHeld(0)).isTrue();
        assertThat(gate.isHeld(1)).isTrue();

        c.broadcastEvent(barrier(1));
        send(c, 101);
        drain(gate);

        assertThat(recorder.log.get(1)).isEqualTo("aligned 1");
        assertThat(recorder.log.subList(2, recorder.log.size())).containsExactlyInAnyOrder("0:[1]", "0:[2]",
                "1:[101]");
    }

    @Test
    void eventTimeIsTheLowestWatermarkOverBothInputs() throws Exception {
        PipelinedInputGate gate = gate();
        a.broadcastEvent(new NetworkEvent.Watermark(100));
        b.broadcastEvent(new NetworkEvent.Watermark(120));
        drain(gate);
        assertThat(recorder.log).as("input 1 has no watermark yet").isEmpty();

        c.broadcastEvent(new NetworkEvent.Watermark(50));
        drain(gate);
        c.broadcastEvent(new NetworkEvent.Watermark(200));
        drain(gate);
        a.broadcastEvent(new NetworkEvent.Watermark(300));
        drain(gate);

        assertThat(recorder.log).containsExactly("watermark 50", "watermark 100", "watermark 120");
    }

    @Test
    void theSecondInputMayEndFirstAndTheEndOfTimeWaitsForBoth() throws Exception {
        PipelinedInputGate gate = gate();
        a.broadcastEvent(new NetworkEvent.Watermark(10));
        b.broadcastEvent(new NetworkEvent.Watermark(20));
        c.broadcastEvent(new NetworkEvent.Watermark(5));
        drain(gate);
        c.finish();
        assertThat(drain(gate)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(recorder.log).containsExactly("watermark 5", "watermark 10", "end of input 1");

        // Input 0 goes on alone, with alignment over its channels only.
        a.broadcastEvent(barrier(1));
        send(a, 1);
        b.broadcastEvent(barrier(1));
        b.broadcastEvent(new NetworkEvent.Watermark(30));
        drain(gate);
        assertThat(recorder.log.subList(3, recorder.log.size())).containsExactly("aligned 1", "0:[1]");

        a.finish();
        drain(gate);
        assertThat(recorder.log).as("the end of input 0's first channel").endsWith("watermark 30");
        b.finish();
        assertThat(drain(gate)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(recorder.log).endsWith("watermark 30", "watermark end", "end of input 0");
        assertThat(recorder.log).filteredOn(line -> line.startsWith("end of input")).hasSize(2);
    }
}
