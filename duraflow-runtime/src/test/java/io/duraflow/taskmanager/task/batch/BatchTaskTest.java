package io.duraflow.taskmanager.task.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.metrics.MetricSample;
import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.sink.Sink;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.AddSplits;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.NoMoreSplits;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.exchange.blocking.PartitionFileWriter;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.taskmanager.task.TaskEnvironment;
import io.duraflow.taskmanager.task.TaskMetricsView;

/** A source task run on the test thread against a fake TaskManager: how it ends and what it releases. */
class BatchTaskTest {
    @TempDir
    Path dir;

    @Test
    void aCancelArrivingDuringTheFinishedReportDoesNotInterruptIt() {
        FakeEnvironment environment = new FakeEnvironment();
        Task task = sourceTask(RecordingSink.working(), environment);
        environment.onReport = update -> {
            if (update.getState() == TaskState.FINISHED) {
                task.cancel();
                environment.interruptedWhileReportingFinished = Thread.currentThread().isInterrupted();
            }
        };

        task.run();

        assertThat(environment.events).containsExactly("RUNNING", "releaseSlot", "FINISHED");
        assertThat(environment.interruptedWhileReportingFinished).isFalse();
        assertThat(Thread.interrupted()).isFalse();
    }

    @Test
    void aFailedTaskAbortsAndClosesItsSinkOnceThenReleasesItsSlotThenReportsTheFailure() {
        FakeEnvironment environment = new FakeEnvironment();
        RecordingSink sink = RecordingSink.failingOnWrite();
        Task task = sourceTask(sink, environment);

        task.run();

        assertThat(environment.events).containsExactly("RUNNING", "releaseSlot", "FAILED");
        assertThat(environment.reports.get(1).getFailure()).contains("write failed");
        RecordingSink.Calls writer = sink.writers.get(0);
        assertThat(writer.writes).isEqualTo(1);
        assertThat(writer.finishes).isZero();
        assertThat(writer.aborts).isEqualTo(1);
        assertThat(writer.closes).isEqualTo(1);
    }

    @Test
    void aCancelWakesASourceWaitingForSplitsAtOnce() throws Exception {
        FakeEnvironment environment = new FakeEnvironment();
        environment.answerSplitRequests = false;
        RecordingSink sink = RecordingSink.working();
        Task task = sourceTask(sink, environment);
        Thread thread = new Thread(task, "task");
        thread.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> environment.splitRequests.get() > 0);
        long cancelledAt = System.nanoTime();
        task.cancel();
        thread.join(10_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt)).isLessThan(Duration.ofSeconds(5));
        assertThat(environment.events).containsExactly("RUNNING", "releaseSlot", "CANCELED");
        assertThat(sink.writers.get(0).aborts).isEqualTo(1);
        assertThat(sink.writers.get(0).closes).isEqualTo(1);
    }

    @Test
    void aCancelInterruptsUserCodeThatBlocks() throws Exception {
        FakeEnvironment environment = new FakeEnvironment();
        CountDownLatch blocked = new CountDownLatch(1);
        Sink<Long> sleeping = new Sink<>() {
            @Override
            public SinkWriter<Long> createWriter(SinkContext context) {
                return new SinkWriter<>() {
                    @Override
                    public void write(Long record) throws Exception {
                        blocked.countDown();
                        Thread.sleep(600_000);
                    }

                    @Override
                    public void finish() {}
                };
            }

            @Override
            public String description() {
                return "sleeping";
            }
        };
        Task task = sourceTask(sleeping, environment);
        Thread thread = new Thread(task, "task");
        thread.start();
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        task.cancel();
        thread.join(10_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(environment.events).containsExactly("RUNNING", "releaseSlot", "CANCELED");
    }

    @Test
    void anOperatorEventTheReaderCannotHandleFailsTheTaskWithThatCause() {
        FakeEnvironment environment = new FakeEnvironment();
        Task task = sourceTask(RecordingSink.working(), environment);
        task.deliver(OperatorEvent.newBuilder().setRequestSplit(
                io.duraflow.rpc.proto.RequestSplit.getDefaultInstance()).build());
        task.run();
        assertThat(environment.events).containsExactly("RUNNING", "releaseSlot", "FAILED");
        assertThat(environment.reports.get(1).getFailure())
                .isEqualTo("IllegalStateException: a source reader cannot handle operator event REQUEST_SPLIT");
    }

    @Test
    void aFinishedTaskFinishesAndClosesItsSinkOnce() {
        FakeEnvironment environment = new FakeEnvironment();
        RecordingSink sink = RecordingSink.working();

        sourceTask(sink, environment).run();

        assertThat(environment.events).containsExactly("RUNNING", "releaseSlot", "FINISHED");
        RecordingSink.Calls writer = sink.writers.get(0);
        assertThat(writer.writes).isEqualTo(10);
        assertThat(writer.finishes).isEqualTo(1);
        assertThat(writer.aborts).isZero();
        assertThat(writer.closes).isEqualTo(1);
    }

    @Test
    void aRunningBatchTaskSamplesItsCountersAndItsUserMetricsForTheHeartbeat() throws Exception {
        FakeEnvironment environment = new FakeEnvironment();
        environment.answerSplitRequests = false;
        Sink<Long> counting = new Sink<>() {
            @Override
            public SinkWriter<Long> createWriter(SinkContext context) {
                context.metrics().counter("writers_opened", "Writers the sink opened").inc();
                return new SinkWriter<>() {
                    @Override
                    public void write(Long record) {}

                    @Override
                    public void finish() {}
                };
            }

            @Override
            public String description() {
                return "counting";
            }
        };
        Task task = sourceTask(counting, environment);
        Thread thread = new Thread(task, "task");
        thread.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> environment.splitRequests.get() > 0);

            // What the TaskManager's heartbeat does: ask for a sample, send the last one.
            await().atMost(Duration.ofSeconds(10)).until(() -> task.sampleMetrics() != null);

            TaskMetricsView view = task.metricsView();
            assertThat(view).as("a scrape shows the batch task").isNotNull();
            assertThat(view.userMetrics()).extracting(MetricSample::name, MetricSample::value)
                    .containsExactly(tuple("writers_opened", 1.0));
        } finally {
            task.cancel();
            thread.join(10_000);
        }
    }

    /** A one-vertex job, numbers 0..9 into {@code sink}; its split requests are answered by the environment. */
    private Task sourceTask(Sink<Long> sink, FakeEnvironment environment) {
        JobBuilder builder = new JobBuilder("numbers");
        builder.fromSource("numbers", new SequenceSource(0, 10, 1)).sinkTo("sink", sink);
        JobGraph graph = JobGraph.compile(builder.plan(), 1);
        TaskDeployment deployment = TaskDeployment.newBuilder().setJmSessionId("session").setParallelism(1)
                .setAttempt(AttemptId.newBuilder().setJobId("job").setVertex(graph.vertices().get(0).id()))
                .build();
        Task task = new Task(deployment, graph, environment, BatchTask::new);
        environment.task = task;
        return task;
    }

    private final class FakeEnvironment implements TaskEnvironment {
        final List<String> events = new ArrayList<>();
        final List<TaskStateUpdate> reports = new ArrayList<>();
        Consumer<TaskStateUpdate> onReport = update -> {};
        boolean interruptedWhileReportingFinished;
        Task task;
        boolean answerSplitRequests = true;
        final AtomicInteger splitRequests = new AtomicInteger();
        private boolean splitSent;

        @Override
        public String taskManagerId() {
            return "tm-test";
        }

        @Override
        public OperatorChain.Settings settings() {
            return new OperatorChain.Settings(1 << 20, 1 << 20, dir);
        }

        @Override
        public PartitionFileWriter createPartition(String jobId, String partitionId, int subpartitions) {
            throw new UnsupportedOperationException("the test job has no exchanges");
        }

        @Override
        public void publish(String jobId, String partitionId) {
            throw new UnsupportedOperationException("the test job has no exchanges");
        }

        @Override
        public void fetch(PartitionLocation location, int from, int to, Consumer<byte[]> frames) {
            throw new UnsupportedOperationException("the test job has no exchanges");
        }

        /** The enumerator: one split with everything, then no more. */
        @Override
        public void sendOperatorEvent(OperatorEventFromTask event) {
            splitRequests.incrementAndGet();
            if (!answerSplitRequests) {
                return;
            }
            if (splitSent) {
                task.deliver(OperatorEvent.newBuilder().setNoMoreSplits(NoMoreSplits.getDefaultInstance()).build());
                return;
            }
            splitSent = true;
            byte[] split = RangeSplit.SERIALIZER.toBytes(new RangeSplit(0, 10));
            task.deliver(OperatorEvent.newBuilder()
                    .setAddSplits(AddSplits.newBuilder().addSplits(ByteString.copyFrom(split))).build());
        }

        @Override
        public void releaseSlot(AttemptId attempt) {
            events.add("releaseSlot");
        }

        @Override
        public void reportState(TaskStateUpdate update) {
            events.add(update.getState().name());
            reports.add(update);
            onReport.accept(update);
        }
    }
}
