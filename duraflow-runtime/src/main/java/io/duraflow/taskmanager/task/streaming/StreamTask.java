package io.duraflow.taskmanager.task.streaming;

import com.google.protobuf.ByteString;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.dag.Operation;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointMessages;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.StateHandleCodec;
import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FsPath;
import io.duraflow.exchange.pipelined.NetworkBuffer;
import io.duraflow.exchange.pipelined.NetworkEnvironment.ChannelLocation;
import io.duraflow.exchange.pipelined.NetworkEvent;
import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.loader.StateBackendLoader;
import io.duraflow.state.filemerging.FileMergingManagers;
import io.duraflow.state.filemerging.FileMergingSettings;
import io.duraflow.state.filemerging.SubtaskKey;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.HeadOperator;
import io.duraflow.taskmanager.task.MailboxProcessor;
import io.duraflow.taskmanager.task.SourceSplitRequests;
import io.duraflow.taskmanager.task.StreamEnvironment;
import io.duraflow.taskmanager.task.StreamOperator;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.taskmanager.task.TaskBody;
import io.duraflow.taskmanager.task.TaskCounters;
import io.duraflow.taskmanager.task.TaskEnvironment;

/**
 * The streaming body of a {@link Task}: pipelined outputs and input gate, operators with state
 * restored from the deployment, checkpoints, and the end of a bounded input. {@link Task} keeps
 * what both modes share (thread, cancellation, the final report); this class runs on the task
 * thread inside {@link #run}, and everything other threads ask for comes as a mail.
 *
 * <h2>Checkpoints</h2>
 * A source task is triggered by the JobManager ({@link #triggerCheckpoint}); any other task
 * snapshots when its gate aligned the barrier. Either way, on the task thread between two
 * records, {@link TaskCheckpoints} takes the snapshot: every operator's synchronous part, then the
 * barrier on every output, then the asynchronous part on the TaskManager's snapshot pool, which
 * acknowledges with the task's {@link TaskStateSnapshot} (or declines). An abort while the
 * asynchronous part runs cancels it, which deletes what it wrote. Completion notifications reach
 * the operators (sinks commit).
 *
 * <h2>End of input</h2>
 * {@link Phase}: when the input ends the chain ends its input and the task reports it
 * ({@code ReportInputEnded}) and stays alive: it finishes (end of partition downstream, FINISHED)
 * only once a checkpoint whose snapshot it took after the end completed, so the sinks committed
 * everything. The JobManager triggers that checkpoint at the task (also a non-source task, whose
 * gate delivers no barrier any more once its producers ended).
 */
public final class StreamTask implements TaskBody {
    private static final Logger LOG = LoggerFactory.getLogger(StreamTask.class);
    /** Longest wait without a mail or a flush deadline; mails normally end it much sooner. */
    private static final long MAX_IDLE_WAIT_MS = 60_000;
    /** How long a source waiting for splits waits for a mail before polling its reader again. */
    private static final long SOURCE_IDLE_WAIT_MS = 200;
    private static final MailboxProcessor.Mail WAKE_UP = () -> { };
    /**
     * Records of a buffer read ahead and handed to the head operator's {@link HeadOperator#prefetch}
     * together before each is processed (TypeSerializer: a read never changes an earlier record).
     */
    static final int MAX_BATCH = 16;

    /** The life of the task's input. */
    enum Phase {
        /** Records flow. */
        RUNNING,
        /** The input ended; waiting for a checkpoint taken after the end to complete. */
        INPUT_ENDED,
        /** That checkpoint completed: the loop ends and the outputs finish. */
        FINISHING
    }

    private final Context context;
    private final TaskDeployment deployment;
    private final AttemptId attempt;
    private final JobGraph graph;
    private final JobVertex vertex;
    private final TaskEnvironment environment;
    private final StreamEnvironment streaming;
    private final TaskCounters counters;
    private final MailboxProcessor mailbox;
    private final SinkContext sinkContext;
    private final String name;

    private final Map<Integer, PipelinedResultPartition> partitions = new LinkedHashMap<>();
    private StreamOperatorChain chain;
    private PipelinedInputGate gate;
    private TaskCheckpoints checkpoints;
    private SourceReader<Object, SourceSplit> reader;
    private Phase phase = Phase.RUNNING;
    /** The first checkpoint this task snapshotted after its input ended, or -1. */
    private long firstCheckpointAfterEnd = -1;
    /** A trigger that came before the end of this (non-source) task's input, taken once the input ended; or null. */
    private TriggerCheckpointRequest deferredTrigger;
    /** The future a wake-up mail is registered on, so each future gets one callback. */
    private CompletableFuture<?> wakeUpRegisteredOn;

    public StreamTask(Context context) {
        this.context = context;
        this.deployment = context.deployment();
        this.attempt = context.attempt();
        this.graph = context.graph();
        this.vertex = context.vertex();
        this.environment = context.environment();
        this.streaming = environment.streaming();
        this.counters = context.counters();
        this.mailbox = context.mailbox();
        this.sinkContext = context.sinkContext();
        this.name = Rpc.describe(attempt) + " " + vertex.name();
    }

    @Override
    public boolean isStreaming() {
        return true;
    }

    /** Task thread (a mail): an operator event from the source's enumerator. */
    @Override
    public void onOperatorEvent(OperatorEvent event) {
        if (reader == null) {
            throw new IllegalStateException("operator event " + event.getEventCase() + " for task " + name
                    + ", which runs no source reader");
        }
        SourceSplitRequests.applyToReader(reader, chain.source().splitSerializer(), event);
    }

    /**
     * Runs the task until its input ended and a checkpoint after the end completed; returns the
     * collected records for the FINISHED report. Releases everything it made, also when it throws.
     */
    @Override
    public Finished run() throws Exception {
        List<CollectedResult> collected = runUntilFinished();
        context.checkCancelled();
        return new Finished(List.of(), collected);
    }

    private List<CollectedResult> runUntilFinished() throws Exception {
        Configuration config = Configuration.fromMap(deployment.getConfigMap());
        int maxParallelism = config.get(CheckpointingOptions.MAX_PARALLELISM);
        StateBackend backend = StateBackendLoader.fromConfiguration(config);
        String checkpointDir = config.get(CheckpointingOptions.DIR);
        FsCheckpointStorage storage = checkpointDir == null ? null
                : FsCheckpointStorage.create(FsPath.parse(checkpointDir), attempt.getJobId(), config);
        FileMergingManagers.Lease fileMerging = storage != null && FileMergingSettings.isEnabled(config)
                ? streaming.fileMerging().acquire(attempt.getJobId(), deployment.getRunId(),
                        new SubtaskKey(attempt.getVertex(), attempt.getSubtask(), deployment.getParallelism()),
                        storage.fileSystem(), storage.directories(), FileMergingSettings.from(config))
                : null;
        checkpoints = new TaskCheckpoints(deployment, name, streaming, storage, fileMerging);
        boolean finished = false;
        java.nio.file.Path localStateDirectory = streaming.localStateDirectory().resolve(attempt.getJobId() + "-v"
                + attempt.getVertex() + "-s" + attempt.getSubtask() + "-a" + attempt.getAttempt());
        try {
            for (OutputSpec output : deployment.getOutputsList()) {
                partitions.put(output.getEdgeId(),
                        streaming.createPipelinedPartition(output.getPartitionId(), output.getSubpartitions()));
            }
            chain = new StreamOperatorChain(graph, vertex, partitions, sinkContext, environment.settings(), counters,
                    timeService(), new StreamOperatorChain.Subtask(attempt.getSubtask(), deployment.getParallelism(),
                            maxParallelism));
            TaskStateSnapshot restored = deployment.hasRestore()
                    ? StateHandleCodec.fromProto(deployment.getRestore().getState()) : TaskStateSnapshot.EMPTY;
            long restoredId = deployment.hasRestore() ? deployment.getRestore().getCheckpointId() : -1;
            if (fileMerging != null && restoredId > 0) {
                fileMerging.manager().restore(fileMerging.subtask(), restoredId, streamsOf(restored));
            }
            chain.open(new StreamOperator.OperatorContext(attempt.getJobId(), attempt.getSubtask(),
                    deployment.getParallelism(), attempt.getAttempt()), backend, restored, restoredId,
                    localStateDirectory);
            if (vertex.isSource()) {
                runSource();
            } else {
                runInputs();
            }
            for (PipelinedResultPartition partition : partitions.values()) {
                partition.finish();
            }
            finished = true;
            LOG.info("Streaming task {} finished: {} records in, {} out", name, counters.recordsIn,
                    counters.recordsOut);
            List<CollectedResult> results = new ArrayList<>();
            for (StreamOperators.Collect collect : chain.collects) {
                ChainedOperators.CollectOperator collected = collect.collected;
                results.add(CollectedResult.newBuilder().setName(collected.name).setSubtask(attempt.getSubtask())
                        .setRecords(collected.records)
                        .setData(ByteString.copyFrom(collected.buffer.buffer(), 0, collected.buffer.position())).build());
            }
            return results;
        } finally {
            if (checkpoints != null) {
                checkpoints.cancelAll();
            }
            if (!finished) {
                for (PipelinedResultPartition partition : partitions.values()) {
                    partition.abort();
                }
            }
            if (gate != null) {
                gate.close();
            }
            if (chain != null) {
                try {
                    chain.close();
                } catch (Exception e) {
                    LOG.warn("Task {}: closing operators failed", name, e);
                }
            }
            deleteLocalState(localStateDirectory);
            if (fileMerging != null) {
                fileMerging.close();
            }
        }
    }

    /** Every stream of state {@code snapshot} refers to. */
    private static List<io.duraflow.state.StreamStateHandle> streamsOf(TaskStateSnapshot snapshot) {
        List<io.duraflow.state.StreamStateHandle> streams = new ArrayList<>();
        for (OperatorSubtaskState state : snapshot.operators().values()) {
            state.keyedState().forEach(handle -> streams.addAll(handle.streams()));
            state.operatorState().forEach(handle -> streams.add(handle.stream()));
        }
        return streams;
    }

    /** The backends deleted their own directories when disposed; this removes the attempt's (and anything left). */
    private void deleteLocalState(java.nio.file.Path directory) {
        if (!java.nio.file.Files.exists(directory)) {
            return;
        }
        try (java.util.stream.Stream<java.nio.file.Path> paths = java.nio.file.Files.walk(directory)) {
            for (java.nio.file.Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.deleteIfExists(path);
            }
        } catch (java.io.IOException | RuntimeException e) {
            LOG.warn("Task {}: could not delete its local state directory {}", name, directory, e);
        }
    }

    @SuppressWarnings("unchecked")
    private void runSource() throws Exception {
        Operation.SourceOp op = (Operation.SourceOp) vertex.head().operation();
        Source<Object, SourceSplit> source = (Source<Object, SourceSplit>) op.source();
        int nodeId = vertex.head().id();
        SourceReaderContext readerContext = new SourceSplitRequests(environment, attempt, deployment.getParallelism(), nodeId);
        Downstream out = chain.sourceOutput();
        io.duraflow.api.functions.Collector<Object> collector = record -> {
            counters.recordsIn++;
            try {
                out.push(record);
            } catch (Exception e) {
                throw ChainedOperators.ChainException.wrap(e);
            }
        };
        try (SourceReader<Object, SourceSplit> sourceReader = source.createReader(readerContext)) {
            reader = sourceReader;
            chain.source().attach(sourceReader);
            sourceReader.start();
            context.defaultAction().accept(controller -> {
                if (!beforeInput(controller)) {
                    return;
                }
                InputStatus status = sourceReader.pollNext(collector);
                if (status == InputStatus.END_OF_INPUT) {
                    endOfInput();
                } else if (status == InputStatus.NOTHING_AVAILABLE) {
                    java.util.concurrent.CompletionStage<Void> available = sourceReader.isAvailable();
                    if (available == SourceReader.WAIT_FOR_SPLITS) {
                        // Splits come as mails; never register on this future: nobody completes it.
                        controller.suspendUntilMail(Math.min(SOURCE_IDLE_WAIT_MS, flushWaitMs()));
                    } else {
                        suspendUntil(available.toCompletableFuture(), controller, false);
                    }
                }
            });
            mailbox.runMailboxLoop();
        } finally {
            reader = null;
        }
    }

    @SuppressWarnings("unchecked")
    private void runInputs() throws Exception {
        List<ChannelLocation> channels = new ArrayList<>();
        TypeSerializer<Object>[] wireTypes = new TypeSerializer[vertex.inputs().size()];
        for (io.duraflow.rpc.proto.InputGate input : deployment.getInputsList()) {
            ExchangeEdge edge = graph.edge(input.getEdgeId());
            wireTypes[edge.inputIndex()] = (TypeSerializer<Object>) edge.producerNode().outputType();
            // Consumer subtask i reads subpartition i of every producer unless the deployment says otherwise.
            int from = input.getSubpartitionTo() > input.getSubpartitionFrom() ? input.getSubpartitionFrom()
                    : attempt.getSubtask();
            int to = input.getSubpartitionTo() > input.getSubpartitionFrom() ? input.getSubpartitionTo() : from + 1;
            for (PartitionLocation producer : input.getProducersList()) {
                for (int subpartition = from; subpartition < to; subpartition++) {
                    channels.add(new ChannelLocation(edge.inputIndex(), producer.getTmId(), producer.getTmAddress(),
                            producer.getPartitionId(), subpartition));
                }
            }
        }
        gate = streaming.createInputGate(name, channels);
        gate.start();
        HeadOperator head = chain.head();
        DataReader frame = new DataReader();
        DataReader record = new DataReader();
        Object[] batch = new Object[MAX_BATCH];
        int[] batchBytes = new int[MAX_BATCH];
        PipelinedInputGate.Handler handler = new PipelinedInputGate.Handler() {
            @Override
            public void onBuffer(int input, NetworkBuffer buffer) throws Exception {
                try {
                    TypeSerializer<Object> wireType = wireTypes[input];
                    byte[] memory = buffer.memory();
                    frame.reset(memory, 0, buffer.size());
                    while (frame.hasRemaining()) {
                        int count = 0;
                        while (count < MAX_BATCH && frame.hasRemaining()) {
                            int length = frame.readVarInt();
                            int start = frame.position();
                            record.reset(memory, start, length);
                            frame.skip(length);
                            batch[count] = wireType.read(record);
                            batchBytes[count++] = length;
                        }
                        head.prefetch(input, batch, count);
                        for (int i = 0; i < count; i++) {
                            counters.recordsIn++;
                            head.process(input, batch[i], batchBytes[i]);
                        }
                    }
                } finally {
                    java.util.Arrays.fill(batch, null);
                    buffer.recycle();
                }
            }

            @Override
            public void onEndOfInput(int input) throws Exception {
                head.endInput(input);
            }

            @Override
            public void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) throws Exception {
                performCheckpoint(barrier, gate.lastAlignmentMs());
            }

            @Override
            public void onCheckpointAborted(long checkpointId, String reason) {
                // Downstream tasks may be aligning it too: they must not wait for our barrier.
                for (PipelinedResultPartition partition : partitions.values()) {
                    partition.broadcastEvent(new NetworkEvent.CancelCheckpointMarker(checkpointId));
                }
            }
        };
        boolean[] gateEnded = {false};
        MailboxProcessor.Controller[] outer = new MailboxProcessor.Controller[1];
        MailboxProcessor.Controller inner = new MailboxProcessor.Controller() {
            @Override
            public void allActionsCompleted() {
                gateEnded[0] = true;
            }

            @Override
            public void suspendUntilMail(long maxWaitMs) {
                outer[0].suspendUntilMail(maxWaitMs);
            }

            @Override
            public void suspendUntilOutput(long maxWaitMs) {
                outer[0].suspendUntilOutput(maxWaitMs);
            }
        };
        PipelinedInputAction readInput = new PipelinedInputAction(gate, handler,
                new ArrayList<>(partitions.values()), mailbox::put);
        context.defaultAction().accept(controller -> {
            if (phase != Phase.RUNNING) {
                beforeInput(controller);
                return;
            }
            outer[0] = controller;
            readInput.run(inner);
            if (gateEnded[0]) {
                endOfInput();
            }
        });
        mailbox.runMailboxLoop();
    }

    /**
     * Flushes due outputs and decides whether the source may read: not while an output is
     * unavailable (it waits for it), nor after the input ended (it waits for mails: the final
     * checkpoint), and the loop ends once that checkpoint completed.
     */
    private boolean beforeInput(MailboxProcessor.Controller controller) {
        for (PipelinedResultPartition output : partitions.values()) {
            output.flushIfDue();
        }
        if (phase == Phase.FINISHING) {
            controller.allActionsCompleted();
            return false;
        }
        if (phase == Phase.INPUT_ENDED) {
            controller.suspendUntilMail(MAX_IDLE_WAIT_MS);
            return false;
        }
        for (PipelinedResultPartition output : partitions.values()) {
            if (!output.isAvailable()) {
                suspendUntil(output.availability(), controller, true);
                return false;
            }
        }
        return true;
    }

    /** @param forOutput the task waits for an output: backpressured time, else idle ({@link TaskTimes}) */
    private void suspendUntil(CompletableFuture<?> future, MailboxProcessor.Controller controller,
            boolean forOutput) {
        if (future.isDone()) {
            return;
        }
        if (future != wakeUpRegisteredOn) {
            wakeUpRegisteredOn = future;
            future.whenComplete((ignored, error) -> mailbox.put(WAKE_UP));
        }
        if (forOutput) {
            controller.suspendUntilOutput(flushWaitMs());
        } else {
            controller.suspendUntilMail(flushWaitMs());
        }
    }

    /** Until the earliest output flush deadline, rounded up, at least 1 ms (0 would not suspend). */
    private long flushWaitMs() {
        long nanos = Long.MAX_VALUE;
        for (PipelinedResultPartition output : partitions.values()) {
            nanos = Math.min(nanos, output.nanosUntilFlush());
        }
        return nanos == Long.MAX_VALUE ? MAX_IDLE_WAIT_MS
                : Math.max(1, Math.min(MAX_IDLE_WAIT_MS, TimeUnit.NANOSECONDS.toMillis(nanos + 999_999)));
    }

    /** The input is processed: end the chain's input, send what is buffered, and wait for the final checkpoint. */
    private void endOfInput() throws Exception {
        chain.endInput();
        for (PipelinedResultPartition output : partitions.values()) {
            output.flushAll();
        }
        phase = Phase.INPUT_ENDED;
        LOG.info("Streaming task {} ended its input; waiting for a checkpoint after it to complete", name);
        TriggerCheckpointRequest trigger = deferredTrigger;
        deferredTrigger = null;
        if (trigger != null && trigger.getCheckpointId() > checkpoints.lastSnapshotId()) {
            performCheckpoint(TaskCheckpoints.barrierOf(trigger), 0);
        }
        streaming.reportInputEnded(TaskInputEnded.newBuilder().setJmSessionId(deployment.getJmSessionId())
                .setAttempt(attempt).build()).whenComplete((ok, error) -> {
                    if (error != null) {
                        LOG.warn("Task {}: reporting the end of input failed ({}); a later checkpoint still ends"
                                + " the task", name, Rpc.message(error));
                    }
                });
    }

    /** Task thread (a mail): starts a checkpoint at this task (a source, or a task whose input ended). */
    @Override
    public void onCheckpointTrigger(TriggerCheckpointRequest request) {
        if (phase == Phase.FINISHING) {
            return; // the outputs are finishing; the JobManager hears FINISHED instead
        }
        if (!vertex.isSource() && phase == Phase.RUNNING) {
            // The JobManager saw every producer finish before this task read the end of their
            // output: the end is on its way, and no barrier will come. Snapshot once it arrived.
            if (deferredTrigger == null || deferredTrigger.getCheckpointId() < request.getCheckpointId()) {
                deferredTrigger = request;
            }
            return;
        }
        performCheckpoint(TaskCheckpoints.barrierOf(request), 0);
    }

    /** Task thread: a snapshot (by trigger or aligned barrier); remembers the first one after the end of input. */
    private void performCheckpoint(NetworkEvent.CheckpointBarrier barrier, long alignmentMs) {
        if (checkpoints.perform(barrier, alignmentMs, chain, partitions.values())
                && phase == Phase.INPUT_ENDED && firstCheckpointAfterEnd < 0) {
            firstCheckpointAfterEnd = barrier.checkpointId();
        }
    }

    /** Task thread (a mail): a checkpoint completed or was aborted. */
    @Override
    public void onCheckpointNotification(CheckpointNotification notification) throws Exception {
        long checkpointId = notification.getCheckpointId();
        if (notification.getCompleted()) {
            checkpoints.completed(checkpointId, notification.getLowestRetainedCheckpointId());
            chain.notifyCheckpointComplete(checkpointId);
            if (firstCheckpointAfterEnd >= 0 && checkpointId >= firstCheckpointAfterEnd) {
                phase = Phase.FINISHING;
            }
        } else {
            checkpoints.aborted(checkpointId);
            chain.notifyCheckpointAborted(checkpointId);
            if (gate != null) {
                // Channels held for its alignment are released now, not when the next barrier comes.
                gate.abortCheckpoint(checkpointId, "the JobManager aborted checkpoint " + checkpointId + ": "
                        + notification.getFailure().getReason() + " " + notification.getFailure().getMessage());
            }
            if (checkpointId == firstCheckpointAfterEnd) {
                firstCheckpointAfterEnd = -1; // the next checkpoint after the end counts instead
            }
        }
    }

    private ProcessingTimeService timeService() {
        return new ProcessingTimeService() {
            @Override
            public long currentTimeMs() {
                return streaming.currentTimeMs();
            }

            @Override
            public void wakeUpAt(long timeMs, MailboxProcessor.Mail action) {
                long delayMs = Math.max(0, timeMs - streaming.currentTimeMs());
                streaming.timers().schedule(() -> mailbox.put(action), delayMs, TimeUnit.MILLISECONDS);
            }
        };
    }
}
