package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.jobmanager.recovery.ReportedTasks;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.HeldTask;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What registered TaskManagers kept through a JobManager failover and reported when they
 * registered: running tasks, until the job's recovery adopts or cancels them (each holds one of
 * its TaskManager's slots meanwhile), and finished partitions, until they are released. A
 * TaskManager whose registration ends takes both along.
 *
 * <p>Bookkeeping only: the calls to the TaskManagers are the {@link ResourceManager}'s. Main
 * thread only (the JobManager's {@link io.duraflow.mailbox.Mailbox}); no locks.
 */
final class KeptFromEarlierLeader {
    /** Where a partition kept through a JobManager failover is, and whose it is. */
    private record Held(String tmId, String jobId) {}

    /** A kept task this leader cancelled: the slot it holds, and what waits for it to stop. */
    record Stopping(String slot, CompletableFuture<Void> stopped) {}

    /** By TaskManager: tasks it kept running across the leader change, not decided on yet. */
    private final Map<String, List<HeldTask>> heldTasks = new LinkedHashMap<>();

    /** By partition id: partitions kept through a JobManager failover. */
    private final Map<String, Held> heldPartitions = new LinkedHashMap<>();

    /**
     * By TaskManager: kept tasks this leader cancelled that may still run there, each with what
     * waits for it to stop. One leaves when its TaskManager's heartbeat no longer lists it, or
     * its registration ends.
     */
    private final Map<String, Map<AttemptId, Stopping>> stopping = new LinkedHashMap<>();

    /** A TaskManager registered with what it kept. */
    void add(String tmId, List<HeldPartition> held, List<HeldTask> keptTasks) {
        if (!keptTasks.isEmpty()) {
            heldTasks.put(tmId, new ArrayList<>(keptTasks));
        }
        for (HeldPartition partition : held) {
            heldPartitions.put(partition.getPartitionId(), new Held(tmId, partition.getJobId()));
        }
    }

    /**
     * The TaskManager's registration ended: what it kept is gone with it. Returns the futures of
     * the kept tasks it was stopping, for the caller to complete once the TaskManager's slots are
     * gone: they count as stopped (it is lost, or registered again and reported what it runs).
     */
    List<CompletableFuture<Void>> ended(String tmId) {
        heldPartitions.values().removeIf(where -> where.tmId().equals(tmId));
        heldTasks.remove(tmId);
        Map<AttemptId, Stopping> wasStopping = stopping.remove(tmId);
        return wasStopping == null ? List.of() : wasStopping.values().stream().map(Stopping::stopped).toList();
    }

    /**
     * The partitions of a job that registered TaskManagers kept from before this leadership:
     * partition id -> TaskManager. By the job id the TaskManager reported, not by the partition
     * id's prefix: job ids may contain '-', so "job" is a prefix of "job-v1"'s partitions.
     */
    Map<String, String> heldPartitions(String jobId) {
        Map<String, String> held = new LinkedHashMap<>();
        heldPartitions.forEach((partitionId, where) -> {
            if (where.jobId().equals(jobId)) {
                held.put(partitionId, where.tmId());
            }
        });
        return held;
    }

    /** Partitions of a job on a TaskManager are released: all of them if {@code partitionIds} is empty. */
    void forgetPartitions(String tmId, String jobId, List<String> partitionIds) {
        if (partitionIds.isEmpty()) {
            heldPartitions.values().removeIf(where -> where.tmId().equals(tmId) && where.jobId().equals(jobId));
        } else {
            partitionIds.forEach(heldPartitions::remove);
        }
    }

    /** Tasks of {@code jobId} that registered TaskManagers kept running and no recovery decided on yet. */
    List<ReportedTask> reportedTasks(String jobId) {
        List<ReportedTask> reports = new ArrayList<>();
        heldTasks.forEach((tmId, tasks) -> {
            for (HeldTask task : tasks) {
                if (task.getAttempt().getJobId().equals(jobId)) {
                    reports.add(ReportedTasks.fromProto(tmId, task, !task.getRunId().isEmpty()));
                }
            }
        });
        return reports;
    }

    /** Whether the TaskManager reported this attempt as kept and no recovery decided on it yet. */
    boolean isHeld(String tmId, AttemptId attempt) {
        for (HeldTask task : heldTasks.getOrDefault(tmId, List.of())) {
            if (task.getAttempt().equals(attempt)) {
                return true;
            }
        }
        return false;
    }

    /** The kept tasks of one TaskManager not decided on yet (their attempts). */
    List<AttemptId> heldTasksOn(String tmId) {
        List<AttemptId> attempts = new ArrayList<>();
        for (HeldTask task : heldTasks.getOrDefault(tmId, List.of())) {
            attempts.add(task.getAttempt());
        }
        return attempts;
    }

    /** Kept tasks were decided on (adopted or cancelled); returns those of them that were still kept. */
    List<HeldTask> forgetTasks(String tmId, List<AttemptId> attempts) {
        List<HeldTask> tasks = heldTasks.get(tmId);
        if (tasks == null) {
            return List.of();
        }
        List<HeldTask> removed = new ArrayList<>();
        tasks.removeIf(task -> attempts.contains(task.getAttempt()) && removed.add(task));
        if (tasks.isEmpty()) {
            heldTasks.remove(tmId);
        }
        return removed;
    }

    /**
     * A kept task was cancelled (it was decided on with {@link #forgetTasks}): the future
     * completes once it is seen stopped ({@link #running}) or its TaskManager's registration ends.
     */
    CompletableFuture<Void> stopping(String tmId, HeldTask task) {
        return stopping.computeIfAbsent(tmId, tm -> new LinkedHashMap<>())
                .computeIfAbsent(task.getAttempt(), a -> new Stopping(task.getSlot(), new CompletableFuture<>()))
                .stopped();
    }

    /**
     * A TaskManager's heartbeat listed the attempts it runs: the cancelled kept tasks it no longer
     * runs have stopped. Returns them, for the caller to complete their futures once it freed
     * their slots.
     */
    List<Stopping> running(String tmId, Collection<AttemptId> attempts) {
        Map<AttemptId, Stopping> onTm = stopping.get(tmId);
        if (onTm == null) {
            return List.of();
        }
        List<Stopping> stopped = new ArrayList<>();
        onTm.entrySet().removeIf(entry -> !attempts.contains(entry.getKey()) && stopped.add(entry.getValue()));
        if (onTm.isEmpty()) {
            stopping.remove(tmId);
        }
        return stopped;
    }
}
