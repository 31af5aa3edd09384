package io.duraflow.cli;

import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of task runs read from a {@link JobStatus}, for the run summary and the batch-failover
 * demo. Pure functions of the status.
 *
 * <p>What a status tells: per vertex, the attempts the <em>current</em> leader started
 * ({@code VertexStatus.attempts}); per subtask, its current or last attempt number and state. A
 * subtask's attempt numbers count up from 0 through every JobManager: a restart moves it to the
 * next number, and a leader that takes a job over gives every subtask that runs again a number
 * above all earlier ones and keeps finished ones with theirs. Only an attempt that ran is ever
 * replaced, so attempts {@code 0 .. n-1} of a subtask at attempt {@code n} all ran, and attempt
 * {@code n} itself ran unless the subtask is still CREATED (waiting) or was CANCELED before it
 * started (a status cannot tell that from a cancelled run, so it is not counted). A stored result
 * of a job that did not finish keeps only the attempt numbers (state "").
 */
public final class TaskRuns {
    private TaskRuns() {}

    /** A subtask of a vertex. */
    public record TaskKey(int vertex, int subtask) implements Comparable<TaskKey> {
        @Override
        public int compareTo(TaskKey other) {
            return vertex != other.vertex ? Integer.compare(vertex, other.vertex)
                    : Integer.compare(subtask, other.subtask);
        }

        @Override
        public String toString() {
            return "v" + vertex + "/" + subtask;
        }
    }

    /**
     * Task runs over the whole job, through every JobManager that ran it: per vertex, the
     * larger of what the attempt numbers prove ran and what the current leader started itself.
     * Exact for a job that finished; never counts a run twice.
     */
    static long tasksRun(JobStatus status) {
        long total = 0;
        for (VertexStatus vertex : status.getVerticesList()) {
            long fromAttempts = 0;
            for (TaskStatus task : vertex.getTasksList()) {
                fromAttempts += task.getAttempt() + (currentAttemptRan(task.getState()) ? 1 : 0);
            }
            total += Math.max(fromAttempts, vertex.getAttempts());
        }
        return total;
    }

    private static boolean currentAttemptRan(String state) {
        return switch (state) {
            case "DEPLOYING", "RUNNING", "FINISHED", "FAILED", "CANCELING" -> true;
            default -> false; // CREATED, CANCELED (maybe before it started), "" (not recorded)
        };
    }

    /** The attempt number of every FINISHED subtask. */
    public static Map<TaskKey, Integer> finishedAttempts(JobStatus status) {
        Map<TaskKey, Integer> finished = new TreeMap<>();
        for (VertexStatus vertex : status.getVerticesList()) {
            for (int subtask = 0; subtask < vertex.getTasksCount(); subtask++) {
                TaskStatus task = vertex.getTasks(subtask);
                if (task.getState().equals("FINISHED")) {
                    finished.put(new TaskKey(vertex.getId(), subtask), task.getAttempt());
                }
            }
        }
        return finished;
    }

    /**
     * The subtasks that had finished (with the attempt numbers in {@code finishedBefore}) and ran
     * again later: their attempt number in {@code later} is higher, because every new run of a
     * subtask, under any leader, gets a higher number.
     */
    public static List<TaskKey> ranAgain(Map<TaskKey, Integer> finishedBefore, JobStatus later) {
        Map<TaskKey, Integer> attempts = attempts(later);
        List<TaskKey> again = new ArrayList<>();
        finishedBefore.forEach((task, attempt) -> {
            Integer now = attempts.get(task);
            if (now != null && now > attempt) {
                again.add(task);
            }
        });
        return again;
    }

    /** The current or last attempt number of every subtask the status lists. */
    public static Map<TaskKey, Integer> attempts(JobStatus status) {
        Map<TaskKey, Integer> attempts = new TreeMap<>();
        for (VertexStatus vertex : status.getVerticesList()) {
            for (int subtask = 0; subtask < vertex.getTasksCount(); subtask++) {
                attempts.put(new TaskKey(vertex.getId(), subtask), vertex.getTasks(subtask).getAttempt());
            }
        }
        return attempts;
    }

    /** Subtasks running right now: RUNNING, not merely being deployed. */
    public static int running(JobStatus status) {
        int running = 0;
        for (VertexStatus vertex : status.getVerticesList()) {
            for (TaskStatus task : vertex.getTasksList()) {
                if (task.getState().equals("RUNNING")) {
                    running++;
                }
            }
        }
        return running;
    }

    /** Subtasks a new leader adopted running from an earlier one (status recovery ADOPTED). */
    public static int adopted(JobStatus status) {
        int adopted = 0;
        for (VertexStatus vertex : status.getVerticesList()) {
            for (TaskStatus task : vertex.getTasksList()) {
                if (task.getRecovery().equals("ADOPTED")) {
                    adopted++;
                }
            }
        }
        return adopted;
    }
}
