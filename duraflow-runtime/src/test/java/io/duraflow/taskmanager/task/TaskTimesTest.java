package io.duraflow.taskmanager.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.exchange.pipelined.NetworkBuffer;
import io.duraflow.exchange.pipelined.NetworkBufferPool;
import io.duraflow.exchange.pipelined.LocalInputChannel;
import io.duraflow.exchange.pipelined.NetworkEvent;
import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.exchange.pipelined.PipelinedPartitionSettings;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.taskmanager.task.streaming.PipelinedInputAction;
import io.duraflow.exchange.Frames;
import io.duraflow.exchange.RecordIterator;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Busy / backpressured / idle time of a task thread, as its mailbox loop measures it. */
@Timeout(60)
class TaskTimesTest {
    private static final long MS = 1_000_000;
    private Thread taskThread;

    @AfterEach
    void stop() throws InterruptedException {
        if (taskThread != null && taskThread.isAlive()) {
            taskThread.interrupt();
            taskThread.join(5000);
        }
    }

    @Test
    void eachWaitIsFiledAsBackpressuredOrIdleByWhatTheActionSuspendedFor() throws Exception {
        // Every read of the clock is 5 ms later than the one before: each wait lasts 5 ms.
        AtomicLong clock = new AtomicLong();
        TaskTimes times = new TaskTimes(() -> clock.addAndGet(5 * MS));
        AtomicInteger runs = new AtomicInteger();
        MailboxProcessor mailbox = new MailboxProcessor(controller -> {
            switch (runs.incrementAndGet()) {
                case 1, 3 -> controller.suspendUntilOutput(1);
                case 2 -> controller.suspendUntilMail(1);
                default -> controller.allActionsCompleted();
            }
        }, times);

        mailbox.runMailboxLoop();
        TaskCounters counters = new TaskCounters();
        counters.recordsIn = 7;
        counters.recordsOut = 3;
        TaskMetricsSample sample = times.sample(counters);

        assertThat(sample.getBackpressuredNanos()).isEqualTo(10 * MS);
        assertThat(sample.getIdleNanos()).isEqualTo(5 * MS);
        assertThat(sample.getRecordsIn()).isEqualTo(7);
        assertThat(sample.getRecordsOut()).isEqualTo(3);
        // The constructor's read (the task's start, for busy time since) comes first.
        assertThat(times.startedAtNanos()).isEqualTo(5 * MS);
        assertThat(sample.getSampledAtNanos()).isEqualTo(40 * MS);
        assertThat(times.latest()).isSameAs(sample);
    }

    @Test
    void aWaitCutShortByAMailIsStillCountedAndNoWaitIsCountedWhenAMailIsPending() throws Exception {
        AtomicLong clock = new AtomicLong();
        TaskTimes times = new TaskTimes(() -> clock.addAndGet(MS));
        AtomicInteger runs = new AtomicInteger();
        MailboxProcessor[] box = new MailboxProcessor[1];
        box[0] = new MailboxProcessor(controller -> {
            if (runs.incrementAndGet() == 1) {
                box[0].put(() -> { }); // pending before the loop suspends: no wait happens
                controller.suspendUntilOutput(60_000);
            } else {
                controller.allActionsCompleted();
            }
        }, times);

        box[0].runMailboxLoop();

        TaskMetricsSample sample = times.sample(new TaskCounters());
        assertThat(sample.getBackpressuredNanos()).isZero();
        assertThat(sample.getIdleNanos()).isZero();
    }

    /**
     * A task whose only downstream never reads: once its output is full, all its time between
     * two samples is backpressured (the real clock; the only busy time is the wake-ups this test
     * causes, microseconds each), none idle.
     */
    @Test
    void aTaskWhoseDownstreamDoesNotReadIsBackpressuredNotIdle() throws Exception {
        int buffer = 1024;
        AtomicLong flushClock = new AtomicLong();
        NetworkBufferPool network = new NetworkBufferPool(64 * buffer, buffer);
        PipelinedResultPartition upstream = new PipelinedResultPartition("in", 1, network,
                new PipelinedPartitionSettings(8, 0, Duration.ofHours(1)), flushClock::get, p -> { });
        PipelinedResultPartition output = new PipelinedResultPartition("out", 1, network,
                new PipelinedPartitionSettings(2, 0, Duration.ofHours(1)), flushClock::get, p -> { });
        output.createView(0, () -> { }); // a consumer that never polls
        for (int i = 0; i < 4 * (buffer / 9); i++) {
            byte[] record = ByteBuffer.allocate(8).putLong(i).array();
            upstream.write(0, record, 0, record.length);
        }
        upstream.flushAll();
        PipelinedInputGate gate = new PipelinedInputGate(List.of(
                new PipelinedInputGate.Channel(0, new LocalInputChannel(upstream, 0))));
        gate.start();
        TaskCounters counters = new TaskCounters();
        PipelinedInputGate.Handler copy = new PipelinedInputGate.Handler() {
            @Override
            public void onBuffer(int input, NetworkBuffer received) throws Exception {
                RecordIterator records = Frames.records(received.memory(), 0, received.size(), "in");
                while (records.hasNext()) {
                    byte[] record = records.next().readBytes(8);
                    output.write(0, record, 0, record.length);
                    counters.recordsIn++;
                    counters.recordsOut++;
                }
                received.recycle();
            }

            @Override
            public void onEndOfInput(int input) {
            }

            @Override
            public void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) {
            }

            @Override
            public void onCheckpointAborted(long checkpointId, String reason) {
            }
        };
        TaskTimes times = new TaskTimes(System::nanoTime);
        AtomicReference<PipelinedInputAction> action = new AtomicReference<>();
        MailboxProcessor mailbox = new MailboxProcessor(controller -> action.get().run(controller), times);
        action.set(new PipelinedInputAction(gate, copy, List.of(output), mailbox::put));
        taskThread = new Thread(() -> {
            try {
                mailbox.runMailboxLoop();
            } catch (Exception | AssertionError e) {
                // interrupted at the end of the test
            }
        }, "task");
        taskThread.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> action.get().backpressuredWaits() >= 1);

        TaskMetricsSample first = sample(mailbox, times, counters, null);
        await().pollDelay(Duration.ofMillis(200)).until(() -> true);
        TaskMetricsSample second = sample(mailbox, times, counters, first);

        assertThat(second.getIdleNanos() - first.getIdleNanos()).isZero();
        assertThat(second.getRecordsIn()).isEqualTo(first.getRecordsIn());
        double backpressuredShare = (double) (second.getBackpressuredNanos() - first.getBackpressuredNanos())
                / (second.getSampledAtNanos() - first.getSampledAtNanos());
        assertThat(backpressuredShare).isGreaterThan(0.8);
    }

    /** Has the task thread sample its counters and returns that sample. */
    private static TaskMetricsSample sample(MailboxProcessor mailbox, TaskTimes times, TaskCounters counters,
            TaskMetricsSample before) {
        mailbox.put(() -> times.sample(counters));
        return await().atMost(Duration.ofSeconds(10)).until(times::latest,
                latest -> latest != null && latest != before);
    }
}
