package io.duraflow.taskmanager.task;

import io.duraflow.exchange.InputGate;
import io.duraflow.exchange.PartitionNotFoundException;
import io.duraflow.exchange.blocking.BlockingInputChannel;
import io.duraflow.exchange.blocking.BlockingInputGate;

import com.google.protobuf.ByteString;
import io.duraflow.api.NonRetriableException;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.api.dag.Operation;
import io.duraflow.rpc.PeerUnreachableException;
import io.duraflow.rpc.Rpc;
import io.duraflow.config.RuntimeMode;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.exchange.FrameIterator;
import io.duraflow.exchange.Frames;
import io.duraflow.exchange.RecordIterator;
import io.duraflow.api.types.DataReader;
import io.duraflow.exchange.ResultPartitionWriter;
import io.duraflow.exchange.PartitionSummary;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of one parallel instance of a vertex, run on its own thread: read the inputs (or
 * the source), push records through the operator chain, write the output partitions, and tell
 * the JobManager how it ended.
 *
 * <p>The task thread runs a {@link MailboxProcessor} loop whose default action processes the
 * next part of the input: a batch of the source reader, or a channel of the {@link InputGate}
 * (yielding to mails after every buffer). Other threads only put mails (operator events,
 * cancel) and, to cancel, interrupt the thread, so only the task thread touches the operators.
 */
public final class Task implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Task.class);

    private final TaskDeployment deployment;
    private final AttemptId attempt;
    private final JobGraph graph;
    private final JobVertex vertex;
    private final TaskEnvironment environment;
    private final TaskCounters counters = new TaskCounters();
    /** Operator events and a source task's checkpoint triggers, in the order the JobManager sent them. */
    private final OperatorEventOrder<Object> eventOrder = new OperatorEventOrder<>(this::applyInOrder);
    /** The task thread's loop; set once in {@link #run} before it starts (mails put earlier wait in it). */
    private final MailboxProcessor mailbox = new MailboxProcessor(controller -> this.defaultAction.run(controller));
    private MailboxProcessor.DefaultAction defaultAction;
    /** The source task's reader, for operator events; task thread only. */
    private SourceReader<Object, SourceSplit> reader;
    private SplitSerializer<SourceSplit> splitSerializer;
    private volatile boolean cancelled;
    /** The task thread while it may be interrupted; set and cleared under {@link #interruptLock}. */
    private Thread thread;
    /** Once the thread is cleared, no cancel() can interrupt what the task thread does next (its final report). */
    private final Object interruptLock = new Object();
    /** The streaming body of a task of a streaming job; null in batch. */
    private final StreamTask stream;

    public Task(TaskDeployment deployment, JobGraph graph, TaskEnvironment environment) {
        this.deployment = deployment;
        this.attempt = deployment.getAttempt();
        this.graph = graph;
        this.vertex = graph.vertex(attempt.getVertex());
        this.environment = environment;
        this.stream = graph.mode() == RuntimeMode.STREAMING
                ? new StreamTask(deployment, graph, environment, counters, mailbox, sinkContext()) : null;
    }

    public AttemptId attempt() {
        return attempt;
    }

    /**
     * Called from an RPC thread: an event from the enumerator, applied on the task thread in the
     * order of {@code sequence} (see {@link OperatorEventOrder}; 0: at once).
     */
    public void deliver(long sequence, OperatorEvent event) {
        eventOrder.accept(sequence, event);
    }

    /** What {@link #eventOrder} lets through, in the order it was sent. */
    private void applyInOrder(Object message) {
        if (message instanceof TriggerCheckpointRequest trigger) {
            stream.triggerCheckpoint(trigger);
        } else if (!((OperatorEvent) message).hasSequenceSkipped()) {
            deliver((OperatorEvent) message);
        }
    }

    /** Called from an RPC thread: the enumerator answered; applied on the task thread. */
    public void deliver(OperatorEvent event) {
        if (stream != null) {
            stream.deliver(event);
            return;
        }
        mailbox.put(() -> apply(event));
    }

    /**
     * Any thread (the TaskManager's heartbeat): the counters a streaming task last sampled, or null
     * (a batch task, or none yet); asks the task thread for a fresh sample, which the next
     * heartbeat carries. The sample has its own timestamp, so it being one heartbeat old does not
     * skew the rates the JobManager computes.
     */
    public io.duraflow.rpc.proto.TaskMetricsSample sampleMetrics() {
        if (stream == null) {
            return null;
        }
        TaskTimes times = mailbox.times();
        mailbox.put(() -> times.sample(counters));
        return times.latest();
    }

    /**
     * Any thread (a metrics scrape): the counters a running streaming task last sampled for its
     * heartbeat, with what names it; null for a batch task or before its first sample. Asks the
     * task for nothing, so a scrape adds no work to the task thread.
     */
    public TaskMetricsView metricsView() {
        if (stream == null) {
            return null;
        }
        TaskTimes times = mailbox.times();
        io.duraflow.rpc.proto.TaskMetricsSample latest = times.latest();
        return latest == null ? null : new TaskMetricsView(attempt, graph.jobName(), vertex.name(),
                times.startedAtNanos(), latest);
    }

    /** Any thread: the JobManager starts a checkpoint at this task (streaming only). */
    public void triggerCheckpoint(TriggerCheckpointRequest request) {
        if (stream == null) {
            throw new IllegalStateException("task " + Rpc.describe(attempt) + " is a batch task and takes no checkpoints");
        }
        // A source's trigger has its place among the enumerator's events (0: none, take it at once).
        eventOrder.accept(request.getEventSequence(), request);
    }

    /** Any thread: a checkpoint completed or was aborted; batch tasks take none and ignore it. */
    public void notifyCheckpoint(CheckpointNotification notification) {
        if (stream != null) {
            stream.notifyCheckpoint(notification);
        }
    }

    /**
     * Any thread: the task stops at its next mail check (between two source batches or input
     * buffers) and is interrupted in case it blocks (a fetch, a wait for splits, user code).
     */
    public void cancel() {
        cancelled = true;
        mailbox.put(() -> {
            throw new InterruptedException("task cancelled");
        });
        synchronized (interruptLock) {
            if (thread != null) {
                thread.interrupt();
            }
        }
    }

    /**
     * Runs the task, then releases everything it held (chain, slot, the right to be interrupted)
     * exactly once, and only then reports how it ended, so that neither a late cancel nor the
     * next task in the slot can get in the way of the report.
     */
    @Override
    public void run() {
        synchronized (interruptLock) {
            thread = Thread.currentThread();
        }
        String name = Rpc.describe(attempt) + " " + vertex.name();
        LOG.info("Task {} starting", name);
        environment.reportState(update(TaskState.RUNNING).build());
        Map<Integer, ResultPartitionWriter> writers = new LinkedHashMap<>();
        Map<Integer, Integer> subpartitions = new LinkedHashMap<>();
        OperatorChain chain = null;
        TaskStateUpdate.Builder finished = null;
        Throwable failure = null;
        try {
            if (stream != null) {
                List<CollectedResult> collected = stream.run(action -> this.defaultAction = action);
                checkCancelled();
                finished = update(TaskState.FINISHED).addAllCollected(collected);
            } else {
                for (OutputSpec output : deployment.getOutputsList()) {
                    writers.put(output.getEdgeId(), environment.createPartition(attempt.getJobId(),
                            output.getPartitionId(), output.getSubpartitions()));
                    subpartitions.put(output.getEdgeId(), output.getSubpartitions());
                }
                chain = new OperatorChain(graph, vertex, writers, subpartitions, sinkContext(),
                        environment.settings(), counters);
                finished = runBatch(writers, subpartitions, chain);
            }
            LOG.info("Task {} finished: {} records in, {} out", name, counters.recordsIn, counters.recordsOut);
        } catch (Throwable t) {
            failure = t;
            for (ResultPartitionWriter writer : writers.values()) {
                try {
                    writer.abort();
                } catch (Exception ignored) {
                    // the files are deleted with the job's partitions
                }
            }
            if (chain != null) {
                chain.abortSinks();
            }
        } finally {
            if (chain != null) {
                closeChain(chain, name);
            }
            environment.releaseSlot(attempt);
            synchronized (interruptLock) {
                thread = null;
            }
            Thread.interrupted();
        }
        if (failure == null) {
            environment.reportState(finished.build());
        } else {
            reportFailure(name, failure);
        }
    }

    private TaskStateUpdate.Builder runBatch(Map<Integer, ResultPartitionWriter> writers,
            Map<Integer, Integer> subpartitions, OperatorChain chain) throws Exception {
        chain.open(new StreamOperator.OperatorContext(attempt.getJobId(), attempt.getSubtask(),
                deployment.getParallelism(), attempt.getAttempt()));
        if (vertex.isSource()) {
            runSource(chain.sourceOutput());
        } else {
            readInputs(chain.head());
        }
        checkCancelled();
        chain.endInput();
        return publishOutputs(writers, chain);
    }

    /**
     * Finishes and publishes the output partitions and collects the results for the FINISHED
     * report. A writer leaves {@code writers} once it is finished (or has aborted itself).
     */
    private TaskStateUpdate.Builder publishOutputs(Map<Integer, ResultPartitionWriter> writers, OperatorChain chain)
            throws IOException {
        TaskStateUpdate.Builder finished = update(TaskState.FINISHED);
        for (OutputSpec output : deployment.getOutputsList()) {
            PartitionSummary summary = writers.remove(output.getEdgeId()).finish();
            environment.publish(attempt.getJobId(), output.getPartitionId());
            SubpartitionSizes.Builder sizes = SubpartitionSizes.newBuilder().setEdgeId(output.getEdgeId())
                    .setPartitionId(output.getPartitionId()).setRecords(summary.totalRecords());
            for (long bytes : summary.subpartitionBytes()) {
                sizes.addBytes(bytes);
            }
            finished.addOutputs(sizes);
        }
        for (ChainedOperators.CollectOperator collect : chain.collects) {
            finished.addCollected(CollectedResult.newBuilder().setName(collect.name)
                    .setSubtask(attempt.getSubtask()).setRecords(collect.records)
                    .setData(ByteString.copyFrom(collect.buffer.buffer(), 0, collect.buffer.position())));
        }
        return finished;
    }

    private static void closeChain(OperatorChain chain, String name) {
        try {
            chain.close();
        } catch (Exception e) {
            LOG.warn("Task {}: closing operators failed", name, e);
        }
    }

    private void reportFailure(String name, Throwable t) {
        Throwable cause = t instanceof ChainedOperators.ChainException && t.getCause() != null ? t.getCause() : t;
        if (cancelled) {
            LOG.info("Task {} cancelled", name);
            environment.reportState(update(TaskState.CANCELED).build());
            return;
        }
        TaskStateUpdate.Builder failed = update(TaskState.FAILED).setFailure(oneLine(cause))
                .setFailureDetail(stackTrace(cause)).setNonRetriable(isNonRetriable(cause));
        Throwable search = cause;
        while (search != null) {
            if (search instanceof PartitionNotFoundException missing) {
                failed.setMissingPartitionId(missing.partitionId());
                break;
            }
            search = search.getCause();
        }
        PeerUnreachableException unreachable = PeerUnreachableException.find(cause);
        if (unreachable != null) {
            failed.setUnreachableTmId(unreachable.taskManagerId()).setUnreachableTmAddress(unreachable.address());
        }
        LOG.warn("Task {} failed: {}", name, oneLine(cause), cause);
        environment.reportState(failed.build());
    }

    /**
     * Whether running the task again cannot succeed, so the job should fail at once: the cause
     * chain holds a {@link NonRetriableException} (user code or the engine says so), a {@link
     * LinkageError} (a class missing, incompatible or failing its initialization: the same
     * classpath fails the same way) or a {@link ClassNotFoundException}. Anything else, including
     * an {@link OutOfMemoryError} or an I/O error, may pass on another try or another TaskManager.
     */
    static boolean isNonRetriable(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof NonRetriableException || t instanceof LinkageError
                    || t instanceof ClassNotFoundException) {
                return true;
            }
        }
        return false;
    }

    private TaskStateUpdate.Builder update(TaskState state) {
        return TaskStateUpdate.newBuilder().setJmSessionId(deployment.getJmSessionId())
                .setTmId(environment.taskManagerId()).setAttempt(attempt).setState(state)
                .setRecordsIn(counters.recordsIn).setRecordsOut(counters.recordsOut);
    }

    private void checkCancelled() throws InterruptedException {
        if (cancelled) {
            throw new InterruptedException("task cancelled");
        }
    }

    private SinkContext sinkContext() {
        return new SinkContext() {
            @Override
            public String jobId() {
                return attempt.getJobId();
            }

            @Override
            public int subtaskIndex() {
                return attempt.getSubtask();
            }

            @Override
            public int parallelism() {
                return deployment.getParallelism();
            }

            @Override
            public int attemptNumber() {
                return attempt.getAttempt();
            }
        };
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void runSource(Downstream out) throws Exception {
        Operation.SourceOp op = (Operation.SourceOp) vertex.head().operation();
        Source<Object, SourceSplit> source = (Source<Object, SourceSplit>) op.source();
        int nodeId = vertex.head().id();
        SourceReaderContext readerContext = new SourceSplitRequests(environment, attempt, deployment.getParallelism(), nodeId);
        io.duraflow.api.functions.Collector<Object> collector = record -> {
            counters.recordsIn++;
            try {
                out.push(record);
            } catch (Exception e) {
                throw ChainedOperators.ChainException.wrap(e);
            }
        };
        this.splitSerializer = source.splitSerializer();
        try (SourceReader<Object, SourceSplit> sourceReader = source.createReader(readerContext)) {
            this.reader = sourceReader;
            sourceReader.start();
            defaultAction = controller -> {
                InputStatus status = sourceReader.pollNext(collector);
                if (status == InputStatus.END_OF_INPUT) {
                    controller.allActionsCompleted();
                } else if (status == InputStatus.NOTHING_AVAILABLE) {
                    // Splits come as mails; the bound only guards a reader that is ready again without one.
                    controller.suspendUntilMail(SOURCE_IDLE_WAIT_MS);
                }
            };
            mailbox.runMailboxLoop();
        } finally {
            this.reader = null;
        }
    }

    /** How long an idle source waits for a mail before polling its reader again. */
    private static final long SOURCE_IDLE_WAIT_MS = 200;

    /** Task thread (a mail): an operator event from the source's enumerator. */
    private void apply(OperatorEvent event) {
        if (reader == null) {
            throw new IllegalStateException("operator event " + event.getEventCase() + " for task "
                    + Rpc.describe(attempt) + ", which runs no source reader");
        }
        applyToReader(reader, splitSerializer, event);
    }

    /** Task thread: gives a source reader what its enumerator sent (splits, or that no more come). */
    static void applyToReader(SourceReader<Object, SourceSplit> reader, SplitSerializer<SourceSplit> splitSerializer,
            OperatorEvent event) {
        switch (event.getEventCase()) {
            case ADD_SPLITS -> {
                List<SourceSplit> splits = new ArrayList<>();
                for (var bytes : event.getAddSplits().getSplitsList()) {
                    splits.add(splitSerializer.fromBytes(bytes.toByteArray()));
                }
                reader.addSplits(splits);
            }
            case NO_MORE_SPLITS -> reader.notifyNoMoreSplits();
            default -> throw new IllegalStateException("a source reader cannot handle operator event "
                    + event.getEventCase());
        }
    }

    @SuppressWarnings("unchecked")
    private void readInputs(HeadOperator head) throws Exception {
        List<BlockingInputGate.Input> inputs = new ArrayList<>();
        TypeSerializer<Object>[] wireTypes = new TypeSerializer[vertex.inputs().size()];
        for (io.duraflow.rpc.proto.InputGate gate : deployment.getInputsList()) {
            ExchangeEdge edge = graph.edge(gate.getEdgeId());
            wireTypes[edge.inputIndex()] = OperatorChain.wireType(edge);
            List<BlockingInputChannel> channels = new ArrayList<>();
            for (PartitionLocation producer : gate.getProducersList()) {
                channels.add(BlockingInputGate.blockingPartition(environment, producer, gate.getSubpartitionFrom(),
                        gate.getSubpartitionTo()));
            }
            inputs.add(new BlockingInputGate.Input(edge.inputIndex(), channels));
        }
        InputGate gate = new BlockingInputGate(inputs);
        InputGate.Handler handler = new InputGate.Handler() {
            @Override
            public void buffer(int input, String partitionId, byte[] frames) throws Exception {
                TypeSerializer<Object> wireType = wireTypes[input];
                FrameIterator frameIterator = Frames.iterate(frames, partitionId);
                while (frameIterator.next()) {
                    RecordIterator records = frameIterator.records();
                    while (records.hasNext()) {
                        DataReader record = records.next();
                        int length = record.remaining();
                        counters.recordsIn++;
                        head.process(input, wireType.read(record), length);
                    }
                }
                mailbox.yieldToMails();
            }

            @Override
            public void endOfInput(int input) throws Exception {
                head.endInput(input);
            }
        };
        defaultAction = controller -> {
            if (!gate.processNext(handler)) {
                controller.allActionsCompleted();
            }
        };
        mailbox.runMailboxLoop();
    }

    /** A failure as one line: its type and the first line of its message. */
    public static String oneLine(Throwable t) {
        String message = t.getMessage();
        String text = message == null || message.isBlank() ? t.getClass().getSimpleName()
                : t.getClass().getSimpleName() + ": " + message;
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    private static String stackTrace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        String trace = out.toString();
        return trace.length() > 16_000 ? trace.substring(0, 16_000) : trace;
    }
}
