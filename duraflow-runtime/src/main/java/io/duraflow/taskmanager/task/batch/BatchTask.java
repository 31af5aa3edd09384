package io.duraflow.taskmanager.task.batch;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.exchange.FrameIterator;
import io.duraflow.exchange.Frames;
import io.duraflow.exchange.InputGate;
import io.duraflow.exchange.PartitionSummary;
import io.duraflow.exchange.RecordIterator;
import io.duraflow.exchange.ResultPartitionWriter;
import io.duraflow.exchange.blocking.BlockingInputChannel;
import io.duraflow.exchange.blocking.BlockingInputGate;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskDeployment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.HeadOperator;
import io.duraflow.taskmanager.task.MailboxProcessor;
import io.duraflow.taskmanager.task.SourceSplitRequests;
import io.duraflow.taskmanager.task.StreamOperator;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.taskmanager.task.TaskBody;
import io.duraflow.taskmanager.task.TaskCounters;
import io.duraflow.taskmanager.task.TaskEnvironment;

/**
 * The body of a batch {@link Task}: read the source or the blocking input partitions, push the
 * records through the chain, then finish and publish the output partition files. The default
 * action processes the next part of the input: a batch of the source reader, or a channel of the
 * {@link BlockingInputGate} (yielding to mails after every buffer). Task thread only.
 */
public final class BatchTask implements TaskBody {
    private static final Logger LOG = LoggerFactory.getLogger(BatchTask.class);
    /** How long an idle source waits for a mail before polling its reader again. */
    private static final long SOURCE_IDLE_WAIT_MS = 200;

    private final Context context;
    private final TaskDeployment deployment;
    private final AttemptId attempt;
    private final JobGraph graph;
    private final JobVertex vertex;
    private final TaskEnvironment environment;
    private final TaskCounters counters;
    private final MailboxProcessor mailbox;
    private final String name;
    /** The source task's reader, for operator events; null while none runs. */
    private SourceReader<Object, SourceSplit> reader;
    private SplitSerializer<SourceSplit> splitSerializer;

    public BatchTask(Context context) {
        this.context = context;
        this.deployment = context.deployment();
        this.attempt = context.attempt();
        this.graph = context.graph();
        this.vertex = context.vertex();
        this.environment = context.environment();
        this.counters = context.counters();
        this.mailbox = context.mailbox();
        this.name = Rpc.describe(attempt) + " " + vertex.name();
    }

    @Override
    public boolean isStreaming() {
        return false;
    }

    /**
     * Runs the chain over the whole input; on a failure aborts the output partitions (a writer
     * leaves {@code writers} once it is finished or has aborted itself) and the sinks, and
     * always closes the chain.
     */
    @Override
    public Finished run() throws Exception {
        Map<Integer, ResultPartitionWriter> writers = new LinkedHashMap<>();
        Map<Integer, Integer> subpartitions = new LinkedHashMap<>();
        BatchOperatorChain chain = null;
        try {
            for (OutputSpec output : deployment.getOutputsList()) {
                writers.put(output.getEdgeId(), environment.createPartition(attempt.getJobId(),
                        output.getPartitionId(), output.getSubpartitions()));
                subpartitions.put(output.getEdgeId(), output.getSubpartitions());
            }
            chain = new BatchOperatorChain(graph, vertex, writers, subpartitions, context.sinkContext(),
                    environment.settings(), counters);
            return runBatch(writers, chain);
        } catch (Throwable t) {
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
            throw t;
        } finally {
            if (chain != null) {
                closeChain(chain, name);
            }
        }
    }

    private Finished runBatch(Map<Integer, ResultPartitionWriter> writers, BatchOperatorChain chain) throws Exception {
        chain.open(new StreamOperator.OperatorContext(attempt.getJobId(), attempt.getSubtask(),
                deployment.getParallelism(), attempt.getAttempt(), context.metrics()));
        if (vertex.isSource()) {
            runSource(chain.sourceOutput());
        } else {
            readInputs(chain.head());
        }
        context.checkCancelled();
        chain.endInput();
        return publishOutputs(writers, chain);
    }

    /**
     * Finishes and publishes the output partitions and collects the results for the FINISHED
     * report. A writer leaves {@code writers} once it is finished (or has aborted itself).
     */
    private Finished publishOutputs(Map<Integer, ResultPartitionWriter> writers, BatchOperatorChain chain)
            throws IOException {
        List<SubpartitionSizes> outputs = new ArrayList<>();
        for (OutputSpec output : deployment.getOutputsList()) {
            PartitionSummary summary = writers.remove(output.getEdgeId()).finish();
            environment.publish(attempt.getJobId(), output.getPartitionId());
            SubpartitionSizes.Builder sizes = SubpartitionSizes.newBuilder().setEdgeId(output.getEdgeId())
                    .setPartitionId(output.getPartitionId()).setRecords(summary.totalRecords());
            for (long bytes : summary.subpartitionBytes()) {
                sizes.addBytes(bytes);
            }
            outputs.add(sizes.build());
        }
        List<CollectedResult> collected = new ArrayList<>();
        for (ChainedOperators.CollectOperator collect : chain.collects) {
            collected.add(collect.result(attempt.getSubtask()));
        }
        return new Finished(outputs, collected);
    }

    private static void closeChain(BatchOperatorChain chain, String name) {
        try {
            chain.close();
        } catch (Exception e) {
            LOG.warn("Task {}: closing operators failed", name, e);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void runSource(Downstream out) throws Exception {
        Operation.SourceOp op = (Operation.SourceOp) vertex.head().operation();
        Source<Object, SourceSplit> source = (Source<Object, SourceSplit>) op.source();
        int nodeId = vertex.head().id();
        SourceReaderContext readerContext = new SourceSplitRequests(environment, attempt, deployment.getParallelism(),
                nodeId, context.metrics());
        io.duraflow.api.source.ReaderOutput<Object> collector = ChainedOperators.sourceOutput(out, counters);
        this.splitSerializer = source.splitSerializer();
        try (SourceReader<Object, SourceSplit> sourceReader = source.createReader(readerContext)) {
            this.reader = sourceReader;
            sourceReader.start();
            context.defaultAction().accept(controller -> {
                InputStatus status = sourceReader.pollNext(collector);
                if (status == InputStatus.END_OF_INPUT) {
                    controller.allActionsCompleted();
                } else if (status == InputStatus.NOTHING_AVAILABLE) {
                    // Splits come as mails; the bound only guards a reader that is ready again without one.
                    controller.suspendUntilMail(SOURCE_IDLE_WAIT_MS);
                }
            });
            mailbox.runMailboxLoop();
        } finally {
            this.reader = null;
        }
    }

    /** Task thread (a mail): an operator event from the source's enumerator. */
    @Override
    public void onOperatorEvent(OperatorEvent event) {
        if (reader == null) {
            throw new IllegalStateException("operator event " + event.getEventCase() + " for task "
                    + Rpc.describe(attempt) + ", which runs no source reader");
        }
        SourceSplitRequests.applyToReader(reader, splitSerializer, event);
    }

    @SuppressWarnings("unchecked")
    private void readInputs(HeadOperator head) throws Exception {
        List<BlockingInputGate.Input> inputs = new ArrayList<>();
        TypeSerializer<Object>[] wireTypes = new TypeSerializer[vertex.inputs().size()];
        for (io.duraflow.rpc.proto.InputGate gate : deployment.getInputsList()) {
            ExchangeEdge edge = graph.edge(gate.getEdgeId());
            wireTypes[edge.inputIndex()] = BatchOperatorChain.wireType(edge);
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
        context.defaultAction().accept(controller -> {
            if (!gate.processNext(handler)) {
                controller.allActionsCompleted();
            }
        });
        mailbox.runMailboxLoop();
    }
}
