package io.duraflow.jobmanager.events;

import io.duraflow.jobmanager.events.proto.CoordinatorState;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.ExecutionsReset;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.jobmanager.events.proto.SplitsAssigned;
import io.duraflow.jobmanager.events.proto.SplitsReturned;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One line of text per job event, for people ({@code duraflow events <jobId>}):
 *
 * <pre>
 * 12:00:01.234 vertex 1 initialized: parallelism 3, ranges [0,43,86,128]
 * 12:00:02.000 execution v0/1#0 finished on tm-ab12 (127.0.0.1:4567): 2 partitions, 1.2 MiB, 5,000,000 records in, 10 records out
 * 12:00:02.100 executions reset: v1/0#1, v1/2#1 (task v1/0 failed: disk full)
 * 12:00:02.200 splits 2 -> source node 0 subtask 1 #0
 * 12:00:02.300 splits 2 <- source node 0 subtask 1 (returned to the enumerator)
 * 12:00:02.400 coordinator of node 0: 1.5 KiB of state at checkpoint -1
 * 12:00:02.500 coordinator of node 3: no snapshot (its split enumerator cannot take one mid-job)
 * </pre>
 *
 * Executions are written {@code v<vertex>/<subtask>#<attempt>}; sizes in binary units; counts with
 * thousands separators. Not a format to parse: read the log with {@link JobEventReader}.
 */
public final class JobEventFormatter {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT);
    /** Range bounds beyond this many are elided, so that a line stays readable at high parallelism. */
    private static final int MAX_BOUNDS_SHOWN = 12;
    private static final int MAX_EXECUTIONS_SHOWN = 10;

    private JobEventFormatter() {
    }

    /** The event as one line, its time in the system's time zone. */
    public static String format(JobEvent event) {
        return format(event, ZoneId.systemDefault());
    }

    /** The event as one line, its time in {@code zone}. */
    public static String format(JobEvent event, ZoneId zone) {
        return TIME.format(Instant.ofEpochMilli(event.getTimestampMs()).atZone(zone)) + " " + describe(event);
    }

    /** The event without its time. */
    public static String describe(JobEvent event) {
        return switch (event.getEventCase()) {
            case VERTEX_INITIALIZED -> vertexInitialized(event.getVertexInitialized());
            case EXECUTION_FINISHED -> executionFinished(event.getExecutionFinished());
            case EXECUTIONS_RESET -> executionsReset(event.getExecutionsReset());
            case EXECUTIONS_DEPLOYED -> "deployed to " + oneLine(event.getExecutionsDeployed().getTmId()) + ": "
                    + executions(event.getExecutionsDeployed().getExecutionsList());
            case SPLITS_ASSIGNED -> splitsAssigned(event.getSplitsAssigned());
            case SPLITS_RETURNED -> splitsReturned(event.getSplitsReturned());
            case COORDINATOR_STATE -> coordinatorState(event.getCoordinatorState());
            case RUN_STARTED -> "the job starts over from the beginning (" + event.getRunStarted().getReason()
                    + "); replay ignores the events above";
            case EVENT_NOT_SET -> "event of an unknown type";
        };
    }

    private static String vertexInitialized(VertexInitialized e) {
        return "vertex " + e.getVertex() + " initialized: parallelism " + e.getParallelism()
                + ", ranges " + bounds(e.getRangeBoundsList());
    }

    private static String executionFinished(ExecutionFinished e) {
        long bytes = 0;
        for (ProducedPartition partition : e.getPartitionsList()) {
            for (long subpartitionBytes : partition.getSubpartitionBytesList()) {
                bytes += subpartitionBytes;
            }
        }
        StringBuilder line = new StringBuilder()
                .append("execution ").append(execution(e.getVertex(), e.getSubtask(), e.getAttempt()))
                .append(" finished on ").append(oneLine(e.getTmId()))
                .append(" (").append(oneLine(e.getTmAddress())).append("): ")
                .append(count(e.getPartitionsCount(), "partition")).append(", ").append(bytes(bytes))
                .append(", ").append(number(e.getRecordsIn())).append(" records in, ")
                .append(number(e.getRecordsOut())).append(" records out");
        if (e.getCountersCount() > 0) {
            line.append(", counters ").append(new TreeMap<>(e.getCountersMap()).entrySet().stream()
                    .map(c -> oneLine(c.getKey()) + "=" + number(c.getValue()))
                    .collect(Collectors.joining(", ", "{", "}")));
        }
        if (e.getCollectedCount() > 0) {
            long records = e.getCollectedList().stream().mapToLong(c -> c.getRecords()).sum();
            line.append(", collected ").append(number(records)).append(" records");
        }
        return line.toString();
    }

    private static String executionsReset(ExecutionsReset e) {
        String reason = e.getReason().isEmpty() ? "" : " (" + oneLine(e.getReason()) + ")";
        return "executions reset: " + executions(e.getExecutionsList()) + reason;
    }

    private static String executions(List<ExecutionRef> refs) {
        String shown = refs.stream().limit(MAX_EXECUTIONS_SHOWN)
                .map(r -> execution(r.getVertex(), r.getSubtask(), r.getNewAttempt()))
                .collect(Collectors.joining(", "));
        String more = refs.size() > MAX_EXECUTIONS_SHOWN
                ? " and " + number(refs.size() - MAX_EXECUTIONS_SHOWN) + " more" : "";
        return refs.isEmpty() ? "none" : shown + more;
    }

    private static String splitsAssigned(SplitsAssigned e) {
        return "splits " + e.getSplitsCount() + " -> source node " + e.getNodeId() + " subtask " + e.getSubtask()
                + " #" + e.getAttempt();
    }

    private static String splitsReturned(SplitsReturned e) {
        return "splits " + e.getCount() + " <- source node " + e.getNodeId() + " subtask " + e.getSubtask()
                + " (returned to the enumerator)";
    }

    private static String coordinatorState(CoordinatorState e) {
        if (e.getSnapshotUnsupported()) {
            return "coordinator of node " + e.getNodeId() + ": no snapshot (its split enumerator cannot take one"
                    + " mid-job)";
        }
        return "coordinator of node " + e.getNodeId() + ": " + bytes(e.getState().size()) + " of state at checkpoint "
                + e.getCheckpointId();
    }

    private static String execution(int vertex, int subtask, int attempt) {
        return "v" + vertex + "/" + subtask + "#" + attempt;
    }

    private static String bounds(List<Integer> bounds) {
        if (bounds.size() <= MAX_BOUNDS_SHOWN) {
            return bounds.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
        }
        return bounds.subList(0, MAX_BOUNDS_SHOWN - 1).stream().map(String::valueOf)
                .collect(Collectors.joining(",", "[", ",...," + bounds.get(bounds.size() - 1) + "]"))
                + " (" + number(bounds.size()) + " bounds)";
    }

    private static String count(long n, String noun) {
        return number(n) + " " + noun + (n == 1 ? "" : "s");
    }

    /** 5,000,000 */
    static String number(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** 512 B, 1.0 KiB, 1.2 MiB, 3.4 GiB, 1.0 TiB */
    static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double value = bytes;
        int unit = -1;
        // 1023.97 KiB would print as "1024.0 KiB"; move up a unit where rounding would reach 1024.
        while (value >= 1023.95 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    private static String oneLine(String text) {
        return text.replace("\r", "\\r").replace("\n", "\\n");
    }
}
