package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.exchange.pipelined.BufferOrEvent;
import io.duraflow.exchange.pipelined.LocalInputChannel;
import io.duraflow.exchange.pipelined.NetworkBuffer;
import io.duraflow.exchange.pipelined.NetworkBufferPool;
import io.duraflow.exchange.pipelined.NetworkEvent;
import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.exchange.pipelined.PipelinedPartitionSettings;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.exchange.pipelined.SubpartitionView;
import io.duraflow.exchange.Frames;
import io.duraflow.exchange.RecordIterator;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import io.duraflow.taskmanager.task.MailboxProcessor;

/** A streaming task's loop over pipelined input and output: a producer, this task (copying records), a consumer. */
@Timeout(60)
class PipelinedInputActionTest {
    private static final int BUFFER = 1024;
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final NetworkBufferPool network = new NetworkBufferPool(64 * BUFFER, BUFFER);
    private final PipelinedResultPartition upstream = new PipelinedResultPartition("in", 1, network,
            new PipelinedPartitionSettings(4, 0, Duration.ofHours(1)), nanos::get, p -> { });
    private final PipelinedResultPartition output = new PipelinedResultPartition("out", 1, network,
            new PipelinedPartitionSettings(2, 0, Duration.ofMillis(100)), nanos::get, p -> { });
    private final SubpartitionView downstream = output.createView(0, () -> { });
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger actionRuns = new AtomicInteger();
    private final AtomicReference<Throwable> loopFailure = new AtomicReference<>();
    private PipelinedInputAction action;
    private MailboxProcessor mailbox;
    private Thread taskThread;

    /** Starts the task thread: it copies every input record to the output and logs barriers. */
    private void startTask() throws Exception {
        PipelinedInputGate gate = new PipelinedInputGate(List.of(
                new PipelinedInputGate.Channel(0, new LocalInputChannel(upstream, 0))));
        gate.start();
        PipelinedInputGate.Handler copy = new PipelinedInputGate.Handler() {
            @Override
            public void onBuffer(int input, NetworkBuffer buffer) throws Exception {
                RecordIterator records = Frames.records(buffer.memory(), 0, buffer.size(), "in");
                while (records.hasNext()) {
                    byte[] record = records.next().readBytes(8);
                    output.write(0, record, 0, record.length);
                }
                buffer.recycle();
            }

            @Override
            public void onEndOfInput(int input) {
                output.finish();
            }

            @Override
            public void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) {
                events.add("aligned " + barrier.checkpointId());
                output.broadcastEvent(barrier);
            }

            @Override
            public void onCheckpointAborted(long checkpointId, String reason) {
                events.add("aborted " + checkpointId);
            }
        };
        AtomicReference<MailboxProcessor> box = new AtomicReference<>();
        mailbox = new MailboxProcessor(controller -> {
            actionRuns.incrementAndGet();
            action.run(controller);
        });
        box.set(mailbox);
        action = new PipelinedInputAction(gate, copy, List.of(output), mailbox::put);
        taskThread = new Thread(() -> {
            try {
                mailbox.runMailboxLoop();
            } catch (Throwable t) {
                loopFailure.set(t);
            }
        }, "task");
        taskThread.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (taskThread != null && taskThread.isAlive()) {
            taskThread.interrupt();
            taskThread.join(5000);
        }
    }

    private static void write(PipelinedResultPartition partition, long value) throws Exception {
        byte[] record = ByteBuffer.allocate(8).putLong(value).array();
        partition.write(0, record, 0, record.length);
    }

    private static int records(BufferOrEvent element) {
        NetworkBuffer buffer = (NetworkBuffer) element;
        int count = buffer.size() / 9;
        buffer.recycle();
        return count;
    }

    @Test
    void anIdleTaskWaitsForInputWithoutSpinningAndWakesWhenDataArrives() throws Exception {
        startTask();
        await().atMost(Duration.ofSeconds(10)).until(() -> action != null && action.idleWaits() >= 1);
        // A mail proves the loop is alive while it waits; awaiting it lets real time pass, which a spinning loop
        // would fill with thousands of runs.
        AtomicInteger mailRan = new AtomicInteger();
        mailbox.put(mailRan::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> mailRan.get() == 1);
        assertThat(actionRuns.get()).isLessThan(10);

        write(upstream, 5);
        upstream.flushAll();
        upstream.finish();
        taskThread.join(10_000);
        assertThat(loopFailure.get()).isNull();
        assertThat(taskThread.isAlive()).isFalse();
        assertThat(records(downstream.poll())).isEqualTo(1);
        assertThat(downstream.poll()).isEqualTo(NetworkEvent.EndOfPartition.INSTANCE);
        assertThat(actionRuns.get()).isLessThan(20);
    }

    @Test
    void aBackpressuredTaskStopsReadingInputUntilItsOutputIsAvailable() throws Exception {
        startTask();
        int perBuffer = BUFFER / 9;
        // Enough input to fill the output's share of 2 buffers and more.
        for (int i = 0; i < 3 * perBuffer; i++) {
            write(upstream, i);
        }
        upstream.flushAll();
        await().atMost(Duration.ofSeconds(10)).until(() -> action.backpressuredWaits() >= 1);
        assertThat(output.buffersInUse()).isEqualTo(2);
        assertThat(upstream.buffersInUse()).as("input not read while the output is unavailable").isGreaterThan(0);

        int received = 0;
        while (received < 3 * perBuffer) {
            BufferOrEvent element = downstream.poll();
            if (element != null) {
                received += records(element);
                continue;
            }
            // The rest may sit in a partly filled buffer: pass its timeout and wake the task.
            nanos.addAndGet(Duration.ofMillis(100).toNanos());
            mailbox.put(() -> { });
            await().atMost(Duration.ofSeconds(10)).until(() -> downstream.backlog() > 0);
        }
        assertThat(received).isEqualTo(3 * perBuffer);
        assertThat(loopFailure.get()).isNull();
    }

    @Test
    void anIdleTaskFlushesItsOutputWhenTheBufferTimeoutPasses() throws Exception {
        startTask();
        write(upstream, 1);
        upstream.flushAll();
        await().atMost(Duration.ofSeconds(10)).until(() -> output.buffersInUse() == 1 && action.idleWaits() >= 2);
        assertThat(downstream.poll()).as("a partly filled buffer waits for the timeout").isNull();

        nanos.addAndGet(Duration.ofMillis(99).toNanos());
        mailbox.put(() -> { });
        AtomicInteger mailRan = new AtomicInteger();
        mailbox.put(mailRan::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> mailRan.get() == 1);
        assertThat(downstream.backlog()).isZero();

        // The task's own wait is bounded by the flush deadline: no mail is needed once the clock passed it.
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        await().atMost(Duration.ofSeconds(10)).until(() -> downstream.backlog() == 1);
        assertThat(records(downstream.poll())).isEqualTo(1);
    }
}
