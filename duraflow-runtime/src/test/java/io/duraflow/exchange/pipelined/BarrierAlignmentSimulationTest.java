package io.duraflow.exchange.pipelined;

import static io.duraflow.exchange.pipelined.NetworkTestSupport.decodeAndRecycle;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.settings;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.writeLong;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.exchange.pipelined.PipelinedInputGate.InputStatus;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Seeded simulation of barrier alignment: three producers send records, barriers and (rarely)
 * cancel markers for checkpoints 1..K in random interleavings with the consumer's polls; the
 * invariants are checked after every step, over many seeds.
 *
 * <ol>
 *   <li>Records of a channel arrive in order, none lost, none twice.</li>
 *   <li>A record a channel sent after its barrier or marker n is delivered only after n was reported.</li>
 *   <li>Every checkpoint is reported once: aligned if no producer cancelled it, aborted otherwise.</li>
 *   <li>No channel is held once every checkpoint was reported.</li>
 *   <li>At the end every buffer is back in the network memory.</li>
 * </ol>
 */
class BarrierAlignmentSimulationTest {
    private static final int CHANNELS = 3;
    private static final int CHECKPOINTS = 6;

    @Test
    void alignmentInvariantsHoldOverManySeeds() throws Exception {
        for (long seed = 1; seed <= 300; seed++) {
            simulate(seed);
        }
    }

    private void simulate(long seed) throws Exception {
        Random random = new Random(seed);
        NetworkBufferPool network = new NetworkBufferPool(64 * 1024, 1024);
        List<PipelinedResultPartition> producers = new ArrayList<>();
        List<PipelinedInputGate.Channel> channels = new ArrayList<>();
        List<ArrayDeque<Object>> scripts = new ArrayList<>();
        long[] expectedRecords = new long[CHANNELS];
        Set<Long> cancelled = new HashSet<>();
        for (int n = 1; n <= CHECKPOINTS; n++) {
            if (random.nextInt(5) == 0) {
                cancelled.add((long) n);
            }
        }
        for (int c = 0; c < CHANNELS; c++) {
            PipelinedResultPartition producer = new PipelinedResultPartition("p" + c, 1, network,
                    settings(2, 1, Duration.ZERO), System::nanoTime, p -> { });
            producers.add(producer);
            channels.add(new PipelinedInputGate.Channel(0, new LocalInputChannel(producer, 0)));
            // The script of channel c: records, then for each checkpoint its barrier, or its cancel marker from
            // one producer that declined (the others still send the barrier, as a coordinator's abort would race).
            ArrayDeque<Object> script = new ArrayDeque<>();
            long seq = 0;
            for (int n = 1; n <= CHECKPOINTS + 1; n++) {
                int records = random.nextInt(4);
                for (int r = 0; r < records; r++) {
                    script.add(encode(c, n - 1, seq++));
                }
                if (n <= CHECKPOINTS) {
                    boolean cancels = cancelled.contains((long) n) && c == n % CHANNELS;
                    script.add(cancels ? new NetworkEvent.CancelCheckpointMarker(n)
                            : new NetworkEvent.CheckpointBarrier(n, n, NetworkEvent.CheckpointKind.CHECKPOINT));
                }
            }
            expectedRecords[c] = seq;
            scripts.add(script);
        }
        PipelinedInputGate gate = new PipelinedInputGate(channels);
        gate.start();
        Checker checker = new Checker(seed);

        boolean ended = false;
        int steps = 0;
        while (!ended) {
            if (++steps > 100_000) {
                throw new AssertionError("seed " + seed + ": no progress");
            }
            int c = random.nextInt(CHANNELS + 1);
            if (c < CHANNELS) {
                PipelinedResultPartition producer = producers.get(c);
                ArrayDeque<Object> script = scripts.get(c);
                if (script.isEmpty()) {
                    if (!checker.finished[c]) {
                        producer.finish();
                        checker.finished[c] = true;
                    }
                } else if (producer.isAvailable()) {
                    Object next = script.poll();
                    if (next instanceof Long value) {
                        writeLong(producer, 0, value);
                    } else {
                        producer.broadcastEvent((NetworkEvent) next);
                    }
                }
            } else {
                ended = gate.pollNext(checker) == InputStatus.END_OF_INPUT;
            }
            for (int i = 0; i < CHANNELS; i++) {
                if (gate.isHeld(i)) {
                    assertThat(checker.reported).as("seed %d: channel %d held though every checkpoint was reported",
                            seed, i).hasSizeLessThan(CHECKPOINTS);
                }
            }
        }

        for (int i = 0; i < CHANNELS; i++) {
            assertThat(gate.isHeld(i)).as("seed %d: channel %d held at the end", seed, i).isFalse();
        }
        for (long n = 1; n <= CHECKPOINTS; n++) {
            assertThat(checker.reported.get(n)).as("seed %d: checkpoint %d", seed, n)
                    .isEqualTo(cancelled.contains(n) ? "aborted" : "aligned");
        }
        for (int c = 0; c < CHANNELS; c++) {
            assertThat(checker.nextSeq[c]).as("seed %d: all records of channel %d", seed, c)
                    .isEqualTo(expectedRecords[c]);
        }
        assertThat(network.bytesInUse()).as("seed %d: memory returned", seed).isZero();
    }

    private static long encode(int channel, int epoch, long seq) {
        return ((long) channel << 48) | ((long) epoch << 32) | seq;
    }

    /** The consumer: checks each delivery against what was reported before it. */
    private static final class Checker implements PipelinedInputGate.Handler {
        final long seed;
        final long[] nextSeq = new long[CHANNELS];
        final boolean[] finished = new boolean[CHANNELS];
        final Map<Long, String> reported = new HashMap<>();

        Checker(long seed) {
            this.seed = seed;
        }

        @Override
        public void onBuffer(int input, NetworkBuffer buffer) {
            for (long value : decodeAndRecycle(buffer)) {
                int channel = (int) (value >>> 48);
                int epoch = (int) ((value >>> 32) & 0xFFFF);
                long seq = value & 0xFFFFFFFFL;
                assertThat(seq).as("seed %d: order of channel %d", seed, channel).isEqualTo(nextSeq[channel]);
                nextSeq[channel]++;
                for (long n = 1; n <= epoch; n++) {
                    assertThat(reported).as("seed %d: record of channel %d after barrier %d delivered before %d"
                            + " was reported", seed, channel, n, n).containsKey(n);
                }
            }
        }

        @Override
        public void onEndOfInput(int input) {
        }

        @Override
        public void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) {
            String previous = reported.put(barrier.checkpointId(), "aligned");
            assertThat(previous).as("seed %d: checkpoint %d reported twice", seed, barrier.checkpointId()).isNull();
        }

        @Override
        public void onCheckpointAborted(long checkpointId, String reason) {
            String previous = reported.put(checkpointId, "aborted");
            assertThat(previous).as("seed %d: checkpoint %d reported twice (%s)", seed, checkpointId, reason).isNull();
        }
    }
}
