package io.duraflow.cli;

import io.duraflow.client.CollectedResults;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Follows a submitted job until it ends, showing progress, then prints its result. */
public final class JobRunner {
    private final ClusterClient client;
    private final PrintStream out;

    JobRunner(ClusterClient client, PrintStream out) {
        this.client = client;
        this.out = out;
    }

    /** Polls the job's status and prints a progress line whenever it changes. */
    JobStatus follow(String jobId) throws InterruptedException {
        long start = System.nanoTime();
        String last = "";
        while (true) {
            JobStatus status = client.status(jobId);
            String progress = progressLine(status);
            if (!progress.equals(last)) {
                out.printf("[%6.1fs] %s%n", (System.nanoTime() - start) / 1e9, progress);
                last = progress;
            }
            if (isTerminal(status.getState())) {
                return status;
            }
            Thread.sleep(100);
        }
    }

    public static boolean isTerminal(JobState state) {
        return state == JobState.JOB_FINISHED || state == JobState.JOB_FAILED || state == JobState.JOB_CANCELED;
    }

    public static String stateName(JobState state) {
        return state.name().replace("JOB_", "");
    }

    static String progressLine(JobStatus status) {
        StringBuilder line = new StringBuilder(stateName(status.getState()));
        for (VertexStatus vertex : status.getVerticesList()) {
            line.append(" | ").append(shortName(vertex.getName())).append(' ').append(vertex.getFinished()).append('/')
                    .append(vertex.getParallelism() == 0 ? "?" : Integer.toString(vertex.getParallelism()));
        }
        if (status.getRestarts() > 0) {
            line.append(" | restarts ").append(status.getRestarts());
        }
        if (!status.getWaitingFor().isEmpty()) {
            line.append(" | ").append(status.getWaitingFor());
        }
        return line.toString();
    }

    private static String shortName(String vertexName) {
        return vertexName.length() > 40 ? vertexName.substring(0, 37) + "..." : vertexName;
    }

    /**
     * One row of {@code duraflow list}: what is known of the job. A job whose stored result is
     * unreadable shows UNKNOWN and "-" for what was lost, never 1970 or a made-up duration.
     */
    /**
     * A running streaming vertex's rates over the last heartbeat interval, e.g. {@code "    12,000 in/s,
     * 12,000 out/s, busy 35%, backpressured 60%, idle 5% (2 subtasks)"}.
     */
    static String ratesLine(io.duraflow.rpc.proto.VertexRates rates) {
        return String.format(java.util.Locale.ROOT, "    %,.0f in/s, %,.0f out/s, busy %.0f%%, backpressured %.0f%%,"
                + " idle %.0f%% (%d subtask%s)", rates.getRecordsInPerSecond(), rates.getRecordsOutPerSecond(),
                rates.getBusyMsPerSecond() / 10, rates.getBackpressuredMsPerSecond() / 10,
                rates.getIdleMsPerSecond() / 10, rates.getSubtasks(), rates.getSubtasks() == 1 ? "" : "s");
    }

    static String listLine(JobStatus job, long nowMs) {
        String state = job.getResultUnreadable() ? "UNKNOWN" : stateName(job.getState());
        String submitted = job.getSubmittedAtMs() > 0 ? java.time.Instant.ofEpochMilli(job.getSubmittedAtMs()).toString()
                : "-";
        String duration = "-";
        if (job.getSubmittedAtMs() > 0 && (job.getEndedAtMs() > 0 || !isTerminal(job.getState()))) {
            long end = job.getEndedAtMs() > 0 ? job.getEndedAtMs() : nowMs;
            duration = String.format("%.1f s", (end - job.getSubmittedAtMs()) / 1000.0);
        }
        return String.format("%-20s %-10s %-20s %-24s %s", job.getJobId(), state,
                job.getJobName().isEmpty() ? "-" : job.getJobName(), submitted, duration);
    }

    /** Prints status, collected records (up to {@code maxRecords} per result) and a summary. */
    void printResult(JobResult result, JobGraph graph, int maxRecords) {
        JobStatus status = result.getStatus();
        if (status.getResultUnreadable()) {
            out.printf("Job %s ended, but its stored result is unreadable; its outcome, times and output are"
                    + " unknown%n  cause: %s%n", status.getJobId(), status.getFailure());
            return;
        }
        double seconds = status.getSubmittedAtMs() > 0 && status.getEndedAtMs() > 0
                ? (status.getEndedAtMs() - status.getSubmittedAtMs()) / 1000.0 : 0;
        String took = seconds > 0 ? String.format(" in %.2f s", seconds) : "";
        out.printf("Job %s (%s) %s%s%n", status.getJobId(), status.getJobName(), stateName(status.getState()), took);
        if (!status.getFailure().isEmpty()) {
            out.println("  cause: " + status.getFailure());
        }
        for (Map.Entry<String, List<Object>> entry : CollectedResults.decode(result, graph).entrySet()) {
            List<Object> records = entry.getValue();
            List<String> lines = new ArrayList<>();
            for (Object record : records) {
                lines.add(String.valueOf(record));
            }
            lines.sort(null);
            out.printf("  %s: %,d records%s%n", entry.getKey(), records.size(),
                    records.size() > maxRecords ? " (first " + maxRecords + ", sorted)" : "");
            for (int i = 0; i < Math.min(maxRecords, lines.size()); i++) {
                out.println("    " + lines.get(i));
            }
        }
        long sourceRecords = 0;
        long tasks = TaskRuns.tasksRun(status);
        for (int i = 0; i < status.getVerticesCount() && graph != null; i++) {
            if (graph.vertex(i).isSource()) {
                sourceRecords += status.getVertices(i).getRecordsIn();
            }
        }
        out.printf("  summary: %,d records read, %d vertices, %d tasks run (%d restarts%s), %.2f s, %s records/s%n",
                sourceRecords, status.getVerticesCount(), tasks, status.getRestarts(),
                status.getRestoredTasks() > 0 ? ", " + status.getRestoredTasks()
                        + " finished tasks kept through a JobManager failover" : "",
                seconds, seconds > 0 ? String.format("%,.0f", sourceRecords / seconds) : "-");
    }
}
