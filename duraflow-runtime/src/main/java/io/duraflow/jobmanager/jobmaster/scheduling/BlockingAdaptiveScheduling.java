package io.duraflow.jobmanager.jobmaster.scheduling;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.config.ExecutionOptions;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.SubpartitionSizes;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch scheduling over blocking exchanges: a vertex runs once every producer of its inputs
 * has finished. A vertex whose parallelism the user did not set gets one decided from the bytes
 * its inputs produced ({@link AdaptiveParallelism}), and each task reads a contiguous range of
 * key groups with about equal bytes; a fixed parallelism reads even ranges.
 */
public final class BlockingAdaptiveScheduling implements SchedulingStrategy {
    private static final Logger LOG = LoggerFactory.getLogger(BlockingAdaptiveScheduling.class);

    private final ExecutionGraph executions;
    private final JobGraph graph;
    private final JobSettings settings;
    private final Supplier<JobEventLog> eventLog;
    /** Set when none of the job's tasks could start for want of a slot (queueing behind its own tasks is no wait). */
    private String waitingFor;

    public BlockingAdaptiveScheduling(ExecutionGraph executions, JobSettings settings,
            Supplier<JobEventLog> eventLog) {
        this.executions = executions;
        this.graph = executions.jobGraph();
        this.settings = settings;
        this.eventLog = eventLog;
    }

    /** One per key group: a consumer's parallelism is decided later and it reads a range of them. */
    @Override
    public int subpartitions(int edgeId) {
        return settings.keyGroups();
    }

    @Override
    public long schedule(long nowMs, Deployer deployer) {
        long nextWakeUp = NOTHING_WAITING;
        for (JobVertex vertex : graph.vertices()) {
            if (!executions.inputsFinished(vertex)) {
                continue;
            }
            if (executions.ranges(vertex.id()) == null) {
                decideParallelism(vertex);
            }
            for (Execution execution : executions.executions(vertex.id())) {
                if (execution.state() != ExecutionState.CREATED) {
                    continue;
                }
                if (execution.notBeforeMs() > nowMs) {
                    nextWakeUp = Math.min(nextWakeUp, execution.notBeforeMs());
                    continue;
                }
                if (!deployer.deploy(execution)) {
                    waitingFor = anyActive() ? null : "waits for a free task slot, and none is free: start a"
                            + " TaskManager, or wait for other jobs to finish";
                    return OUT_OF_SLOTS;
                }
            }
        }
        waitingFor = null;
        return nextWakeUp;
    }

    @Override
    public String waitingFor() {
        return waitingFor;
    }

    private boolean anyActive() {
        for (Execution execution : executions.all()) {
            if (execution.state().isActive()) {
                return true;
            }
        }
        return false;
    }

    private void decideParallelism(JobVertex vertex) {
        int keyGroups = settings.keyGroups();
        if (vertex.inputs().isEmpty()) {
            int[] bounds = {0, 1};
            executions.ranges(vertex.id(), bounds);
            // Logged for sources too: a new leader then knows that every subtask may have run as
            // attempt 0, even one that was deployed but had not asked for a split yet.
            eventLog.get().vertexInitialized(vertex.id(), executions.executions(vertex.id()).length, bounds);
            return;
        }
        long[] bytes = new long[keyGroups];
        for (int edgeId : vertex.inputs()) {
            for (Execution producer : executions.executions(graph.edge(edgeId).producer())) {
                SubpartitionSizes sizes = producer.output(edgeId);
                for (int i = 0; i < sizes.getBytesCount() && i < keyGroups; i++) {
                    bytes[i] += sizes.getBytes(i);
                }
            }
        }
        int parallelism;
        if (executions.executions(vertex.id()) != null) {
            parallelism = executions.executions(vertex.id()).length;
            if (parallelism > keyGroups) {
                // Submission validates this (JobGraph#checkKeyGroups); never deploy what cannot read its input.
                throw new IllegalStateException("vertex '" + vertex.name() + "' has parallelism " + parallelism
                        + " above the " + keyGroups + " key groups of its input; raise "
                        + ExecutionOptions.BATCH_MAX_KEY_GROUPS.key() + " to at least " + parallelism);
            }
        } else {
            long total = 0;
            for (long b : bytes) {
                total += b;
            }
            parallelism = AdaptiveParallelism.decide(total, settings.bytesPerTask(), settings.minParallelism(),
                    settings.maxParallelism(), keyGroups);
            executions.initializeVertex(vertex.id(), parallelism);
            LOG.info("Job {}: vertex '{}' reads {} bytes; parallelism {}", executions.jobId(), vertex.name(), total,
                    parallelism);
        }
        int[] bounds = vertex.parallelism() > 0 ? AdaptiveParallelism.evenRanges(keyGroups, parallelism)
                : AdaptiveParallelism.ranges(bytes, parallelism);
        executions.ranges(vertex.id(), bounds);
        eventLog.get().vertexInitialized(vertex.id(), parallelism, bounds);
    }
}
