package io.duraflow.cli.demo;

import io.duraflow.cli.CliException;
import io.duraflow.cli.LocalCluster;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The TaskManager processes of a {@link LocalCluster}, found through their logs (a TaskManager
 * logs its id when it starts: {@code TaskManager tm-... listening on ...}), for the
 * streaming-failover demo.
 */
final class LocalTaskManagers {
    private static final Pattern LISTENING = Pattern.compile("TaskManager (\\S+) listening on ");
    private static final Pattern GAVE_UP = Pattern.compile("^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*Lost the JobManager");

    private LocalTaskManagers() {}

    /** A TaskManager to kill: its process name in the cluster, the process and how many of the job's tasks it runs. */
    record Victim(String name, ProcessHandle process, int tasks) {
    }

    /** The live TaskManager of the cluster that runs the most of the job's tasks (the first one on a tie). */
    static Victim runningMostTasks(LocalCluster cluster, JobStatus status) throws IOException {
        Map<String, Integer> tasksPerTaskManager = new HashMap<>();
        for (VertexStatus vertex : status.getVerticesList()) {
            for (TaskStatus task : vertex.getTasksList()) {
                if (!task.getTmId().isEmpty() && task.getState().equals("RUNNING")) {
                    tasksPerTaskManager.merge(task.getTmId(), 1, Integer::sum);
                }
            }
        }
        Victim victim = null;
        for (Map.Entry<String, Long> process : cluster.processes().entrySet()) {
            String name = process.getKey();
            Optional<ProcessHandle> handle = ProcessHandle.of(process.getValue()).filter(ProcessHandle::isAlive);
            Optional<String> id = taskManagerId(cluster.log(name));
            if (!name.startsWith("taskmanager-") || handle.isEmpty() || id.isEmpty()) {
                continue;
            }
            int tasks = tasksPerTaskManager.getOrDefault(id.get(), 0);
            if (victim == null || tasks > victim.tasks()) {
                victim = new Victim(name, handle.get(), tasks);
            }
        }
        if (victim == null || victim.tasks() == 0) {
            throw new CliException("no TaskManager of the cluster in " + cluster.workDir() + " runs a task of the job"
                    + " (TaskManagers by id: " + tasksPerTaskManager + "); see its logs");
        }
        return victim;
    }

    /** The id a TaskManager logged when it started. */
    static Optional<String> taskManagerId(Path log) throws IOException {
        if (!Files.exists(log)) {
            return Optional.empty();
        }
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher matcher = LISTENING.matcher(line);
            if (matcher.find()) {
                return Optional.of(matcher.group(1));
            }
        }
        return Optional.empty();
    }

    /**
     * When the last TaskManager that logged it gave up its JobManager after {@code sinceEpochMs}
     * ({@code Lost the JobManager ...: cancelled the tasks}): until then its tasks ran on. Log
     * lines carry the time of day in this machine's zone.
     */
    static Optional<Long> lastGaveUpJobManager(LocalCluster cluster, long sinceEpochMs) throws IOException {
        Optional<Long> last = Optional.empty();
        for (String name : cluster.processes().keySet()) {
            if (!name.startsWith("taskmanager-") || !Files.exists(cluster.log(name))) {
                continue;
            }
            for (String line : Files.readAllLines(cluster.log(name), StandardCharsets.UTF_8)) {
                Optional<Long> at = gaveUpAt(line, sinceEpochMs);
                if (at.isPresent() && (last.isEmpty() || at.get() > last.get())) {
                    last = at;
                }
            }
        }
        return last;
    }

    /** The time of a "Lost the JobManager" log line, if it is one and at or after {@code sinceEpochMs}. */
    static Optional<Long> gaveUpAt(String line, long sinceEpochMs) {
        Matcher matcher = GAVE_UP.matcher(line);
        return matcher.find() ? timeOfDayAfter(matcher.group(1), sinceEpochMs) : Optional.empty();
    }

    /**
     * The epoch ms of a log line's time of day ({@code HH:mm:ss.SSS}, this machine's zone) that
     * lies within an hour after {@code sinceEpochMs} (at most a second before it, then counted
     * as {@code sinceEpochMs}), the next day's if needed; empty if none does or it is no time.
     */
    static Optional<Long> timeOfDayAfter(String timeOfDay, long sinceEpochMs) {
        try {
            LocalTime time = LocalTime.parse(timeOfDay);
            ZoneId zone = ZoneId.systemDefault();
            LocalDate day = java.time.Instant.ofEpochMilli(sinceEpochMs).atZone(zone).toLocalDate();
            for (LocalDate candidate : List.of(day, day.plusDays(1))) {
                long at = candidate.atTime(time).atZone(zone).toInstant().toEpochMilli();
                // The kill and the give-up are seconds apart: a time of day before the kill is the next day's.
                if (at >= sinceEpochMs - 1000 && at - sinceEpochMs < 3_600_000) {
                    return Optional.of(Math.max(at, sinceEpochMs));
                }
            }
        } catch (DateTimeParseException ignored) {
            // not a log line of ours
        }
        return Optional.empty();
    }
}
