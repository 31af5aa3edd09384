package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.ReaderOutput;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.dag.Operation;
import io.duraflow.checkpoint.StateHandleCodec;
import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import io.duraflow.exchange.pipelined.NetworkEvent;
import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.loader.StateBackendLoader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;
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
 * A source task is triggered by the JobManager ({@link #onCheckpointTrigger}); any other task
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
 * gate delivers no barrier any more once its producers ended). In a job that takes no
 * checkpoints no such checkpoint comes: the sinks commit at the end of input and the task finishes.
 */
public final class StreamTask implements TaskBody {
    private static final Logger LOG = LoggerFactory.getLogger(StreamTask.class);
    /** Longest wait without a mail or a flush deadline; mails normally end it much sooner. */
    private static final long MAX_IDLE_WAIT_MS = 60_000;
    /** How long a source waiting for splits waits for a mail before polling its reader again. */
    private static final long SOURCE_IDLE_WAIT_MS = 200;
    private static final MailboxProcessor.Mail WAKE_UP = () -> { };

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
    /** The reader's watermark alignment, while it runs; null without. */
    private SourceAlignment alignment;
    private Phase phase = Phase.RUNNING;
    /** Whether the job takes checkpoints; without, the task finishes as soon as its input ended. */
    private boolean checkpointing;
    /** How often a source with a watermark strategy asks its generators for a watermark. */
    private long autoWatermarkIntervalMs;
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
        if (event.hasWatermarkAlignment()) {
            if (alignment != null) { // else the reader ended: nothing to align
                alignment.onAnnouncement(event.getWatermarkAlignment().getGroupMinWatermark());
            }
            return;
        }
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
        checkpoints = TaskCheckpoints.create(deployment, name, streaming, config);
        checkpointing = CheckpointingOptions.isEnabled(config);
        autoWatermarkIntervalMs = config.get(io.duraflow.config.ExecutionOptions.AUTO_WATERMARK_INTERVAL).toMillis();
        boolean finished = false;
        java.nio.file.Path localStateDirectory = LocalStateDirectory.of(streaming, attempt);
        try {
            for (OutputSpec output : deployment.getOutputsList()) {
                partitions.put(output.getEdgeId(),
                        streaming.createPipelinedPartition(output.getPartitionId(), output.getSubpartitions()));
            }
            chain = new StreamOperatorChain(graph, vertex, partitions, sinkContext, environment.settings(), counters,
                    ProcessingTimeService.of(streaming, mailbox), new StreamOperatorChain.Subtask(attempt.getSubtask(),
                            deployment.getParallelism(), maxParallelism), autoWatermarkIntervalMs);
            TaskStateSnapshot restored = deployment.hasRestore()
                    ? StateHandleCodec.fromProto(deployment.getRestore().getState()) : TaskStateSnapshot.EMPTY;
            long restoredId = deployment.hasRestore() ? deployment.getRestore().getCheckpointId() : -1;
            checkpoints.restore(restoredId, restored);
            chain.open(new StreamOperator.OperatorContext(attempt.getJobId(), attempt.getSubtask(),
                    deployment.getParallelism(), attempt.getAttempt(), context.metrics()), backend, restored, restoredId,
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
                results.add(collect.collected.result(attempt.getSubtask()));
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
            LocalStateDirectory.delete(localStateDirectory, name);
            checkpoints.close();
        }
    }

    @SuppressWarnings("unchecked")
    private void runSource() throws Exception {
        Operation.SourceOp op = (Operation.SourceOp) vertex.head().operation();
        Source<Object, SourceSplit> source = (Source<Object, SourceSplit>) op.source();
        int nodeId = vertex.head().id();
        SourceSplitRequests readerContext = new SourceSplitRequests(environment, attempt, deployment.getParallelism(), nodeId,
                context.metrics());
        Downstream out = chain.sourceOutput();
        ReaderOutput<Object> collector;
        SourceEventTime eventTime = null;
        if (op.watermarks() != null) {
            ProcessingTimeService clock = ProcessingTimeService.of(streaming, mailbox);
            eventTime = new SourceEventTime(op.watermarks(), out, counters, chain.recordTime, clock.currentTimeMs(),
                    this::broadcastWatermarkStatus);
            eventTime.schedulePeriodic(clock, autoWatermarkIntervalMs, () -> phase == Phase.RUNNING);
            alignment = SourceAlignment.start(op.watermarks(), eventTime, readerContext::reportWatermark, clock);
            collector = eventTime;
        } else {
            collector = ChainedOperators.sourceOutput(out, counters);
        }
        SourceEventTime sourceEventTime = eventTime;
        try (SourceReader<Object, SourceSplit> sourceReader = source.createReader(readerContext)) {
            reader = sourceReader;
            chain.source().attach(sourceReader);
            sourceReader.start();
            context.defaultAction().accept(controller -> {
                if (!beforeInput(controller)) {
                    return;
                }
                if (alignment != null && alignment.paused()) {
                    controller.suspendUntilMail(flushWaitMs()); // an announcement, a report or a flush
                    return;
                }
                InputStatus status = sourceReader.pollNext(collector);
                if (status == InputStatus.END_OF_INPUT) {
                    if (sourceEventTime != null) {
                        sourceEventTime.endOfInput(); // the end of time goes through the chain first
                    }
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
            // A mail (a checkpoint trigger above all) must not wait for a reader blocked in its client.
            mailbox.onMailArrival(sourceReader::wakeUp);
            mailbox.runMailboxLoop();
        } finally {
            mailbox.onMailArrival(null);
            reader = null;
            alignment = null;
        }
    }

    /** This task's input is idle ({@code idle}) or active again: its consumers must not wait for its watermark. */
    private void broadcastWatermarkStatus(boolean idle) {
        for (PipelinedResultPartition partition : partitions.values()) {
            partition.broadcastEvent(idle ? NetworkEvent.WatermarkStatus.IDLE : NetworkEvent.WatermarkStatus.ACTIVE);
        }
    }

    private void runInputs() throws Exception {
        gate = streaming.createInputGate(name, PipelinedInputHandler.channels(graph, deployment, attempt.getSubtask()));
        gate.start();
        PipelinedInputGate.Handler handler = new PipelinedInputHandler(chain.head(),
                PipelinedInputHandler.wireTypes(graph, vertex, deployment), graph.eventTime() ? chain.recordTime : null, counters,
                new PipelinedInputHandler.GateReports() {
                    @Override
                    public void barrierAligned(NetworkEvent.CheckpointBarrier barrier) {
                        performCheckpoint(barrier, gate.lastAlignmentMs());
                    }

                    @Override
                    public void alignmentAborted(long checkpointId) {
                        // Downstream tasks may be aligning it too: they must not wait for our barrier.
                        for (PipelinedResultPartition partition : partitions.values()) {
                            partition.broadcastEvent(new NetworkEvent.CancelCheckpointMarker(checkpointId));
                        }
                    }

                    @Override
                    public void watermarkStatus(boolean idle) {
                        broadcastWatermarkStatus(idle); // idle inputs make an idle task
                    }
                });
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
        if (!checkpointing) {
            // No checkpoint will come to let the sinks commit and the task finish: both happen now.
            chain.commitAtEndWithoutCheckpoints();
            phase = Phase.FINISHING;
            LOG.info("Streaming task {} ended its input; the job takes no checkpoints, so it commits and finishes",
                    name);
            return;
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
}
