package io.duraflow.exchange.pipelined;

import static io.duraflow.exchange.pipelined.NetworkTestSupport.decodeAndRecycle;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.settings;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.writeLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.duraflow.exchange.Frames;
import io.duraflow.exchange.PartitionSummary;
import io.duraflow.exchange.RecordIterator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class PipelinedResultPartitionTest {
    private static final int BUFFER = 1024;
    private final NetworkTestSupport.ManualNanoClock clock = new NetworkTestSupport.ManualNanoClock();
    private final NetworkBufferPool network = new NetworkBufferPool(64 * BUFFER, BUFFER);
    private final List<PipelinedResultPartition> released = new ArrayList<>();

    private PipelinedResultPartition partition(int subpartitions, PipelinedPartitionSettings settings) {
        return new PipelinedResultPartition("p-1", subpartitions, network, settings, clock, released::add);
    }

    @Test
    void aPartlyFilledBufferIsSentOnlyWhenTheBufferTimeoutPassed() throws Exception {
        PipelinedResultPartition partition = partition(1, settings(4, 0, Duration.ofMillis(100)));
        AtomicInteger notified = new AtomicInteger();
        SubpartitionView view = partition.createView(0, notified::incrementAndGet);

        writeLong(partition, 0, 1);
        clock.advance(Duration.ofMillis(60));
        writeLong(partition, 0, 2);
        assertThat(partition.nanosUntilFlush()).isEqualTo(Duration.ofMillis(40).toNanos());
        clock.advance(Duration.ofMillis(39));
        assertThat(partition.flushIfDue()).isFalse();
        assertThat(view.poll()).isNull();
        assertThat(notified).hasValue(0);

        clock.advance(Duration.ofMillis(1));
        assertThat(partition.flushIfDue()).isTrue();
        assertThat(notified).hasValue(1);
        assertThat(decodeAndRecycle((NetworkBuffer) view.poll())).containsExactly(1L, 2L);
        assertThat(partition.nanosUntilFlush()).as("nothing unsent: no deadline").isEqualTo(Long.MAX_VALUE);

        // The timer starts again with the next record, not at the last flush.
        clock.advance(Duration.ofSeconds(5));
        writeLong(partition, 0, 3);
        assertThat(partition.flushIfDue()).isFalse();
        assertThat(partition.nanosUntilFlush()).isEqualTo(Duration.ofMillis(100).toNanos());
    }

    @Test
    void aFullBufferIsSentAtOnceAndAZeroTimeoutSendsEveryRecord() throws Exception {
        PipelinedResultPartition full = partition(1, settings(4, 0, Duration.ofHours(1)));
        SubpartitionView view = full.createView(0, () -> { });
        int perBuffer = BUFFER / 9; // 1 length byte + 8 bytes per record
        for (int i = 0; i < perBuffer + 1; i++) {
            writeLong(full, 0, i);
        }
        List<Long> first = decodeAndRecycle((NetworkBuffer) view.poll());
        assertThat(first).hasSize(perBuffer);
        assertThat(view.poll()).isNull();

        PipelinedResultPartition eager = new PipelinedResultPartition("p-2", 1, network,
                settings(4, 0, Duration.ZERO), clock, released::add);
        SubpartitionView eagerView = eager.createView(0, () -> { });
        writeLong(eager, 0, 7);
        assertThat(decodeAndRecycle((NetworkBuffer) eagerView.poll())).containsExactly(7L);
    }

    @Test
    void eventsAreElementsOfTheirOwnAfterTheRecordsWrittenBeforeThem() throws Exception {
        PipelinedResultPartition partition = partition(2, settings(4, 0, Duration.ofHours(1)));
        SubpartitionView zero = partition.createView(0, () -> { });
        SubpartitionView one = partition.createView(1, () -> { });
        writeLong(partition, 0, 10);
        writeLong(partition, 1, 11);
        NetworkEvent.CheckpointBarrier barrier = new NetworkEvent.CheckpointBarrier(1, 500,
                NetworkEvent.CheckpointKind.CHECKPOINT);
        partition.broadcastEvent(barrier);
        writeLong(partition, 0, 12);
        PartitionSummary summary = partition.finish();

        assertThat(decodeAndRecycle((NetworkBuffer) zero.poll())).containsExactly(10L);
        assertThat(zero.poll()).isEqualTo(barrier);
        assertThat(decodeAndRecycle((NetworkBuffer) zero.poll())).containsExactly(12L);
        assertThat(zero.poll()).isEqualTo(NetworkEvent.EndOfPartition.INSTANCE);
        assertThat(decodeAndRecycle((NetworkBuffer) one.poll())).containsExactly(11L);
        assertThat(one.poll()).isEqualTo(barrier);
        assertThat(released).isEmpty();
        assertThat(one.poll()).isEqualTo(NetworkEvent.EndOfPartition.INSTANCE);

        assertThat(summary.subpartitionRecords()).containsExactly(2, 1);
        assertThat(summary.subpartitionBytes()).containsExactly(18, 9);
        assertThat(released).as("released once every reader read its end").containsExactly(partition);
        assertThat(network.bytesInUse()).isZero();
        assertThat(network.unreservedFreeBuffers()).isEqualTo(network.totalBuffers());
    }

    @Test
    void aRecordLargerThanABufferTravelsInABufferOfItsOwn() throws Exception {
        PipelinedResultPartition partition = partition(1, settings(4, 0, Duration.ofHours(1)));
        SubpartitionView view = partition.createView(0, () -> { });
        writeLong(partition, 0, 1);
        byte[] large = new byte[3 * BUFFER];
        large[large.length - 1] = 42;
        partition.write(0, large, 0, large.length);

        assertThat(decodeAndRecycle((NetworkBuffer) view.poll())).containsExactly(1L);
        NetworkBuffer own = (NetworkBuffer) view.poll();
        RecordIterator records = Frames.records(own.memory(), 0, own.size(), "test");
        assertThat(records.next().readBytes(large.length)).isEqualTo(large);
        own.recycle();
        assertThat(partition.buffersInUse()).isZero();
    }

    @Test
    void outputTurnsUnavailableAtItsShareTheOverdraftFinishesTheRecordAndOnlyThenWritesBlock() throws Exception {
        // Share: 2 subpartitions x 2 buffers; overdraft 1; each buffer is flushed when full.
        PipelinedResultPartition partition = partition(2, settings(2, 1, Duration.ofHours(1)));
        SubpartitionView view = partition.createView(0, () -> { });
        partition.createView(1, () -> { });
        int perBuffer = BUFFER / 9;
        long next = 0;
        while (partition.isAvailable()) {
            writeLong(partition, 0, next++);
        }
        CompletableFuture<Void> availability = partition.availability();
        assertThat(availability).isNotDone();
        assertThat(partition.buffersInUse()).isEqualTo(4);

        // The record being processed may still emit: it gets the overdraft buffer.
        for (int i = 0; i < perBuffer; i++) {
            writeLong(partition, 0, next++);
        }
        assertThat(partition.buffersInUse()).isEqualTo(5);

        // Beyond the overdraft the writer blocks until the consumer frees a buffer.
        AtomicLong written = new AtomicLong();
        long blockedValue = next;
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < perBuffer; i++) {
                    writeLong(partition, 0, blockedValue + i); // the last one needs a sixth buffer
                }
                written.set(1);
            } catch (Exception e) {
                written.set(-1);
            }
        });
        writer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> writer.getState() == Thread.State.WAITING);
        assertThat(written).hasValue(0);
        assertThat(partition.buffersInUse()).isEqualTo(5);

        // Recycling one buffer leaves the partition at its share (the overdraft counts): still blocked.
        List<Long> received = new ArrayList<>(decodeAndRecycle((NetworkBuffer) view.poll()));
        assertThat(partition.isAvailable()).isFalse();
        assertThat(written).hasValue(0);
        received.addAll(decodeAndRecycle((NetworkBuffer) view.poll()));
        await().atMost(Duration.ofSeconds(10)).until(() -> written.get() == 1);
        writer.join();
        assertThat(partition.buffersInUse()).isLessThanOrEqualTo(5);
        partition.flushAll();
        BufferOrEvent element;
        while ((element = view.poll()) != null) {
            received.addAll(decodeAndRecycle((NetworkBuffer) element));
        }
        assertThat(received).hasSize((int) next + perBuffer);
        for (int i = 0; i < received.size(); i++) {
            assertThat(received.get(i)).isEqualTo(i);
        }
    }

    @Test
    void anAbortedProducerFailsItsReadersAndGivesItsMemoryBack() throws Exception {
        PipelinedResultPartition partition = partition(1, settings(4, 0, Duration.ofHours(1)));
        AtomicInteger notified = new AtomicInteger();
        SubpartitionView view = partition.createView(0, notified::incrementAndGet);
        writeLong(partition, 0, 1);
        partition.flushAll();
        writeLong(partition, 0, 2);

        partition.abort();

        assertThat(notified).hasValue(2);
        assertThatThrownBy(view::poll).isInstanceOf(ProducerFailedException.class)
                .hasMessageContaining("producer of partition p-1 failed or was cancelled");
        assertThat(released).containsExactly(partition);
        assertThat(network.bytesInUse()).isZero();
        assertThatThrownBy(() -> writeLong(partition, 0, 3)).hasMessageContaining("ABORTED");
    }

    @Test
    void aReaderThatGoesAwayFreesItsQueueButNotTheProducersMemory() throws Exception {
        PipelinedResultPartition partition = partition(1, settings(4, 0, Duration.ofHours(1)));
        SubpartitionView view = partition.createView(0, () -> { });
        writeLong(partition, 0, 1);
        partition.flushAll();
        view.release();
        assertThat(partition.buffersInUse()).isZero();

        writeLong(partition, 0, 2);
        partition.flushAll();
        assertThat(partition.buffersInUse()).as("recycled at once: nobody reads it").isZero();
        assertThat(released).isEmpty();
        partition.finish();
        assertThat(released).containsExactly(partition);
    }
}
