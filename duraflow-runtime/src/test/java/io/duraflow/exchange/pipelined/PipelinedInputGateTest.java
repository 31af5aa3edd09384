package io.duraflow.exchange.pipelined;

import static io.duraflow.exchange.pipelined.NetworkTestSupport.decodeAndRecycle;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.settings;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.writeLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.exchange.pipelined.PipelinedInputGate.InputStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class PipelinedInputGateTest {
    private static final int BUFFER = 1024;
    private final NetworkTestSupport.ManualNanoClock clock = new NetworkTestSupport.ManualNanoClock();
    private final NetworkBufferPool network = new NetworkBufferPool(64 * BUFFER, BUFFER);
    /** Producers A and B feed channels 0 and 1 of input 0 of one gate. */
    private final PipelinedResultPartition a = producer("A");
    private final PipelinedResultPartition b = producer("B");
    private final Recorder recorder = new Recorder();

    private PipelinedResultPartition producer(String id) {
        return new PipelinedResultPartition(id, 1, network, settings(4, 0, Duration.ofHours(1)), clock, p -> { });
    }

    private PipelinedInputGate gate() throws Exception {
        PipelinedInputGate gate = new PipelinedInputGate(List.of(
                new PipelinedInputGate.Channel(0, new LocalInputChannel(a, 0)),
                new PipelinedInputGate.Channel(0, new LocalInputChannel(b, 0))));
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

    /** Polls until the gate has nothing more; returns the last status. */
    private InputStatus drain(PipelinedInputGate gate) throws Exception {
        InputStatus status;
        do {
            status = gate.pollNext(recorder);
        } while (status == InputStatus.MORE_AVAILABLE);
        return status;
    }

    @Test
    void dataAfterABarrierIsHeldUntilTheOtherChannelDeliveredItsBarrier() throws Exception {
        PipelinedInputGate gate = gate();
        send(a, 1, 2);
        a.broadcastEvent(barrier(1));
        send(a, 3, 4);
        send(b, 10);

        assertThat(drain(gate)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(recorder.log).containsExactlyInAnyOrder("0:[1, 2]", "0:[10]");
        assertThat(gate.isHeld(0)).isTrue();
        assertThat(gate.availability()).isNotDone();

        b.broadcastEvent(barrier(1));
        send(b, 11);
        assertThat(gate.availability()).isDone();
        drain(gate);

        List<String> afterBarrier = recorder.log.subList(2, recorder.log.size());
        assertThat(afterBarrier.get(0)).isEqualTo("aligned 1");
        assertThat(afterBarrier.subList(1, afterBarrier.size())).containsExactlyInAnyOrder("0:[3, 4]", "0:[11]");
        assertThat(gate.isHeld(0)).isFalse();
    }

    @Test
    void orderWithinAChannelIsKeptAcrossManyBuffers() throws Exception {
        PipelinedInputGate gate = gate();
        // Ten rounds of 300 records per producer, each about three buffers: within their share of 4.
        for (long round = 0; round < 10; round++) {
            for (long i = 1; i <= 300; i++) {
                writeLong(a, 0, round * 300 + i);
                writeLong(b, 0, -(round * 300 + i));
            }
            a.flushAll();
            b.flushAll();
            assertThat(drain(gate)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        }
        a.finish();
        b.finish();

        assertThat(drain(gate)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(recorder.values(v -> v > 0)).isSorted().hasSize(3000);
        assertThat(recorder.values(v -> v < 0)).isSortedAccordingTo(java.util.Comparator.reverseOrder()).hasSize(3000);
        assertThat(recorder.log).endsWith("end of input 0");
        assertThat(network.bytesInUse()).isZero();
    }

    @Test
    void aCancelMarkerAbortsAlignmentReleasesTheHeldChannelAndLateBarriersAreIgnored() throws Exception {
        PipelinedInputGate gate = gate();
        a.broadcastEvent(barrier(1));
        send(a, 1);
        drain(gate);
        assertThat(gate.isHeld(0)).isTrue();

        b.broadcastEvent(new NetworkEvent.CancelCheckpointMarker(1));
        drain(gate);
        assertThat(recorder.log.get(0)).startsWith("aborted 1: checkpoint 1 was cancelled upstream");
        assertThat(recorder.log).contains("0:[1]");
        assertThat(gate.isHeld(0)).isFalse();

        b.broadcastEvent(barrier(1));
        send(b, 2);
        drain(gate);
        assertThat(recorder.log).doesNotContain("aligned 1").contains("0:[2]");
        assertThat(gate.isHeld(1)).isFalse();
    }

    @Test
    void theJobManagersAbortEndsAlignmentAtOnceAndAnAbortOfALaterCheckpointMakesItsBarriersIgnored()
            throws Exception {
        PipelinedInputGate gate = gate();
        a.broadcastEvent(barrier(1));
        send(a, 1);
        drain(gate);
        assertThat(gate.isHeld(0)).isTrue();

        gate.abortCheckpoint(1, "expired");
        drain(gate);
        assertThat(recorder.log).containsExactly("aborted 1: expired", "0:[1]");
        assertThat(gate.isHeld(0)).isFalse();

        gate.abortCheckpoint(2, "declined elsewhere");
        a.broadcastEvent(barrier(2));
        b.broadcastEvent(barrier(2));
        send(a, 2);
        drain(gate);
        assertThat(recorder.log).contains("aborted 2: declined elsewhere", "0:[2]").doesNotContain("aligned 2");
        assertThat(gate.isHeld(0)).isFalse();
    }

    @Test
    void aNewerBarrierAbortsTheOlderAlignmentAndAlignsItself() throws Exception {
        PipelinedInputGate gate = gate();
        a.broadcastEvent(barrier(1));
        send(a, 1);
        drain(gate);

        b.broadcastEvent(barrier(2));
        send(b, 2);
        drain(gate);
        assertThat(recorder.log.get(0)).startsWith("aborted 1: barrier of newer checkpoint 2");
        assertThat(gate.isHeld(1)).isTrue();
        assertThat(recorder.log).contains("0:[1]").doesNotContain("0:[2]");

        a.broadcastEvent(barrier(2));
        drain(gate);
        assertThat(recorder.log).containsSubsequence("aligned 2", "0:[2]");
    }

    @Test
    void aFinishedChannelCountsAsAligned() throws Exception {
        PipelinedInputGate gate = gate();
        a.broadcastEvent(barrier(1));
        send(a, 1);
        drain(gate);
        b.finish();

        assertThat(drain(gate)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(recorder.log).containsExactly("aligned 1", "0:[1]");

        a.broadcastEvent(barrier(2));
        assertThat(drain(gate)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(recorder.log).endsWith("aligned 2");
        a.finish();
        assertThat(drain(gate)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(recorder.log).endsWith("end of input 0");
    }

    @Test
    void theAvailabilityFutureCompletesWhenDataArrives() throws Exception {
        PipelinedInputGate gate = gate();
        assertThat(gate.pollNext(recorder)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        var availability = gate.availability();
        assertThat(availability).isNotDone();

        writeLong(a, 0, 5);
        assertThat(availability).as("a record still in the producer's buffer is not data yet").isNotDone();
        a.flushAll();
        assertThat(availability).isDone();
        assertThat(gate.pollNext(recorder)).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(recorder.log).containsExactly("0:[5]");
    }

    @Test
    void aFailedProducerFailsThePoll() throws Exception {
        PipelinedInputGate gate = gate();
        send(a, 1);
        a.abort();

        assertThatThrownBy(() -> drain(gate)).isInstanceOf(ProducerFailedException.class)
                .hasMessageContaining("producer of partition A failed");
    }

    @Test
    void closingTheGateGivesQueuedBuffersBackToTheProducers() throws Exception {
        PipelinedInputGate gate = gate();
        send(a, 1);
        send(b, 2);
        assertThat(network.buffersInUse()).isEqualTo(2);
        gate.close();
        assertThat(network.buffersInUse()).isZero();
    }

    @Test
    void theGatesEventTimeIsTheLowestWatermarkOfItsChannelsThatAreNotIdle() throws Exception {
        PipelinedInputGate gate = gate();
        a.broadcastEvent(new NetworkEvent.Watermark(100));
        drain(gate);
        assertThat(recorder.log).as("b has no watermark yet").isEmpty();
        send(b, 7);
        b.broadcastEvent(new NetworkEvent.Watermark(40));
        a.broadcastEvent(new NetworkEvent.Watermark(150));
        drain(gate);
        b.broadcastEvent(NetworkEvent.WatermarkStatus.IDLE);
        drain(gate);
        a.broadcastEvent(NetworkEvent.WatermarkStatus.IDLE);
        drain(gate);
        b.broadcastEvent(new NetworkEvent.Watermark(120)); // active again, below the gate's 150: held
        b.broadcastEvent(new NetworkEvent.Watermark(160));
        drain(gate);

        assertThat(recorder.log.stream().filter(line -> !line.startsWith("0:")))
                .containsExactly("watermark 40", "watermark 150", "idle", "active", "watermark 160");
        assertThat(gate.currentWatermark()).isEqualTo(160);
    }

    @Test
    void endedChannelsHoldNothingBackAndTheEndOfAllComesBeforeTheEndOfInput() throws Exception {
        PipelinedInputGate gate = gate();
        a.broadcastEvent(new NetworkEvent.Watermark(10));
        b.broadcastEvent(new NetworkEvent.Watermark(20));
        drain(gate);
        a.finish();
        drain(gate);
        b.finish();
        assertThat(drain(gate)).isEqualTo(InputStatus.END_OF_INPUT);

        assertThat(recorder.log).containsExactly("watermark 10", "watermark 20", "watermark end", "end of input 0");
    }

    @Test
    void watermarksCrossTheWireAsStreamEvents() {
        for (NetworkEvent event : List.of(new NetworkEvent.Watermark(-5), new NetworkEvent.Watermark(Long.MAX_VALUE),
                NetworkEvent.WatermarkStatus.IDLE, NetworkEvent.WatermarkStatus.ACTIVE)) {
            assertThat(StreamEvents.fromProto(StreamEvents.toProto(event))).isEqualTo(event);
        }
    }

    /** Logs what the gate delivers: "input:[values]", "aligned n", "aborted n: reason", "end of input i". */
    static final class Recorder implements PipelinedInputGate.Handler {
        final List<String> log = new ArrayList<>();
        final List<Long> values = new ArrayList<>();

        @Override
        public void onBuffer(int input, NetworkBuffer buffer) {
            List<Long> decoded = decodeAndRecycle(buffer);
            values.addAll(decoded);
            log.add(input + ":" + decoded);
        }

        @Override
        public void onEndOfInput(int input) {
            log.add("end of input " + input);
        }

        @Override
        public void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) {
            log.add("aligned " + barrier.checkpointId());
        }

        @Override
        public void onCheckpointAborted(long checkpointId, String reason) {
            log.add("aborted " + checkpointId + ": " + reason);
        }

        @Override
        public void onWatermark(long watermark) {
            log.add("watermark " + (watermark == Long.MAX_VALUE ? "end" : watermark));
        }

        @Override
        public void onWatermarkStatus(boolean idle) {
            log.add(idle ? "idle" : "active");
        }

        List<Long> values(java.util.function.LongPredicate filter) {
            return values.stream().filter(filter::test).toList();
        }
    }
}
