package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.events.JobEventLogFormat;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.jobmanager.jobmaster.RecordingJobEventLog;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.SubpartitionSizes;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether a new leader takes a FINISHED report that a TaskManager carried across a leader change as
 * if the earlier leader had logged it. Pure: no I/O, no clock. The eight rules a report must pass
 * (numbered as tests and code refer to them): see docs/design/batch-recovery.md#earlierfinishes.
 */
final class EarlierFinishes {
    private EarlierFinishes() {}

    /** Where the report's job stands on this leader. */
    enum Standing {
        UNKNOWN("this leader does not know the job"),
        ENDED("the job already ended"),
        RUNNING("the job already runs under this leader"),
        RECOVERING("");

        final String why;

        Standing(String why) {
            this.why = why;
        }
    }

    /** What to do with one report. */
    sealed interface Decision permits Accept, Ignore {}

    /** Log this event (the report's finish) and let the recovery plan see it. */
    record Accept(ExecutionFinished event) implements Decision {}

    /** Leave the report; {@code reason} is one line for the log. */
    record Ignore(String reason) implements Decision {}

    /**
     * @param session the session this leader leads
     * @param tmId the registering TaskManager
     * @param tmAddress its host:port, recorded as where the output is
     * @param graph the job's graph; may be null unless {@code standing} is RECOVERING
     * @param events the job's replayed event log, in order; ignored unless RECOVERING
     */
    static Decision decide(TaskStateUpdate report, String session, String tmId, String tmAddress,
            Standing standing, JobGraph graph, List<JobEvent> events) {
        AttemptId attempt = report.getAttempt();
        if (report.getState() != TaskState.FINISHED) {
            return new Ignore("it is not a finish but " + report.getState());
        }
        if (report.getJmSessionId().equals(session)) {
            return new Ignore("it is of this leadership, whose reports come by the normal path");
        }
        if (!report.getTmId().equals(tmId)) {
            return new Ignore("it names TaskManager " + report.getTmId() + ", not the registering " + tmId);
        }
        if (standing != Standing.RECOVERING) {
            return new Ignore(standing.why);
        }
        if (events.stream().anyMatch(JobEvent::hasRunStarted)) {
            return new Ignore("the job was restarted from scratch under an earlier leader, so the report may be"
                    + " of the abandoned run");
        }
        int vertexId = attempt.getVertex();
        if (vertexId < 0 || vertexId >= graph.vertices().size()) {
            return new Ignore("the job has no vertex " + vertexId);
        }
        JobVertex vertex = graph.vertex(vertexId);
        if (vertex.isSource()) {
            return new Ignore("it is a source task, whose last split assignments may be missing from the log");
        }
        Replayed replayed = replay(vertexId, attempt.getSubtask(), events);
        if (replayed.layouts().isEmpty()) {
            return new Ignore("the log never laid out vertex " + vertexId + " (no VertexInitialized)");
        }
        if (replayed.layouts().size() > 1) {
            return new Ignore("the log laid out vertex " + vertexId + " in " + replayed.layouts().size()
                    + " ways, so the report may be of an earlier layout");
        }
        int parallelism = replayed.layouts().get(0).getParallelism();
        if (attempt.getSubtask() < 0 || attempt.getSubtask() >= parallelism) {
            return new Ignore("vertex " + vertexId + " has " + parallelism + " subtasks in the log, not subtask "
                    + attempt.getSubtask());
        }
        if (attempt.getAttempt() < replayed.highestAttempt()) {
            return new Ignore("attempt #" + attempt.getAttempt() + " is stale: the log knows #"
                    + replayed.highestAttempt());
        }
        if (attempt.getAttempt() > replayed.highestAttempt()) {
            return new Ignore("the log does not know attempt #" + attempt.getAttempt() + " (its latest is #"
                    + replayed.highestAttempt() + ")");
        }
        if (replayed.finishedAttempts().contains(attempt.getAttempt())) {
            return new Ignore("its finish is logged already");
        }
        String outputsProblem = outputsProblem(vertex, report.getOutputsList());
        if (outputsProblem != null) {
            return new Ignore(outputsProblem);
        }
        ExecutionFinished event = RecordingJobEventLog.finishedEvent(vertexId, attempt.getSubtask(),
                attempt.getAttempt(), tmId, tmAddress, report);
        if (event.getSerializedSize() > JobEventLogFormat.MAX_PAYLOAD_BYTES - 1024) {
            return new Ignore("its finish (" + event.getSerializedSize() + " bytes) is too large for one job event");
        }
        return new Accept(event);
    }

    /** The report, as one line's subject. */
    static String describe(TaskStateUpdate report, String tmId) {
        AttemptId attempt = report.getAttempt();
        return "the finish of " + attempt.getJobId() + "/v" + attempt.getVertex() + "/" + attempt.getSubtask() + "#"
                + attempt.getAttempt() + " that TaskManager " + tmId + " carried from session "
                + report.getJmSessionId();
    }

    /** What the log says about one subtask. */
    private record Replayed(List<VertexInitialized> layouts, int highestAttempt, Set<Integer> finishedAttempts) {}

    private static Replayed replay(int vertexId, int subtask, List<JobEvent> events) {
        List<VertexInitialized> layouts = new ArrayList<>();
        int highest = -1;
        Set<Integer> finished = new HashSet<>();
        for (JobEvent event : events) {
            switch (event.getEventCase()) {
                case VERTEX_INITIALIZED -> {
                    VertexInitialized initialized = event.getVertexInitialized();
                    if (initialized.getVertex() == vertexId) {
                        if (layouts.stream().noneMatch(l -> sameLayout(l, initialized))) {
                            layouts.add(initialized);
                        }
                        highest = Math.max(highest, 0);
                    }
                }
                case EXECUTION_FINISHED -> {
                    ExecutionFinished done = event.getExecutionFinished();
                    if (done.getVertex() == vertexId && done.getSubtask() == subtask) {
                        highest = Math.max(highest, done.getAttempt());
                        finished.add(done.getAttempt());
                    }
                }
                case EXECUTIONS_RESET -> {
                    for (ExecutionRef ref : event.getExecutionsReset().getExecutionsList()) {
                        if (ref.getVertex() == vertexId && ref.getSubtask() == subtask) {
                            highest = Math.max(highest, ref.getNewAttempt());
                        }
                    }
                }
                default -> { }
            }
        }
        return new Replayed(layouts, highest, finished);
    }

    private static boolean sameLayout(VertexInitialized a, VertexInitialized b) {
        return a.getParallelism() == b.getParallelism()
                && Arrays.equals(a.getRangeBoundsList().toArray(), b.getRangeBoundsList().toArray());
    }

    /** Why the reported partitions do not fit the vertex's output edges, or null if they do. */
    private static String outputsProblem(JobVertex vertex, List<SubpartitionSizes> outputs) {
        Set<Integer> reported = new HashSet<>();
        for (SubpartitionSizes output : outputs) {
            if (!vertex.outputs().contains(output.getEdgeId()) || !reported.add(output.getEdgeId())) {
                return "it reports a partition on edge " + output.getEdgeId() + ", but vertex " + vertex.id()
                        + " writes one to each of edges " + vertex.outputs();
            }
        }
        if (reported.size() != vertex.outputs().size()) {
            return "it reports partitions on edges " + reported + ", but vertex " + vertex.id()
                    + " writes to edges " + vertex.outputs();
        }
        return null;
    }
}
