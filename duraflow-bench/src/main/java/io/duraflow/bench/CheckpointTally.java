package io.duraflow.bench;

import io.duraflow.cli.ClusterClient;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The checkpoints of one Duraflow benchmark run, as its JobMaster lists them: polled while the job
 * runs ({@link #poll}, the list keeps only the recent ones), then counted ({@link #of}).
 *
 * @param completed checkpoints that completed
 * @param failed checkpoints that failed
 * @param averageMillis the completed ones' average duration, trigger to completion; -1 without any
 * @param failureReasons the failed ones' reasons, each once, in order
 */
record CheckpointTally(int completed, int failed, long averageMillis, Set<String> failureReasons) {

    static CheckpointTally of(Collection<CheckpointSummary> checkpoints) {
        int completed = 0;
        int failed = 0;
        long durations = 0;
        Set<String> reasons = new LinkedHashSet<>();
        for (CheckpointSummary c : checkpoints) {
            if (c.getStatus().equals("COMPLETED")) {
                completed++;
                durations += c.getDurationMs();
            } else if (c.getStatus().equals("FAILED")) {
                failed++;
                reasons.add(c.getFailureReason() + ": " + c.getFailureMessage());
            }
        }
        return new CheckpointTally(completed, failed, completed == 0 ? -1 : durations / completed, reasons);
    }

    /** Prints the failed checkpoints' reasons after {@code prefix}, if any failed. */
    void printFailures(String prefix) {
        if (!failureReasons.isEmpty()) {
            System.out.println(prefix + ": failed checkpoints: " + String.join(" | ", failureReasons));
        }
    }

    /** Adds the job's checkpoints the JobMaster lists now to {@code into}; nothing if it lists none (not running). */
    static void poll(ClusterClient client, String jobId, Map<Long, CheckpointSummary> into) {
        JobCheckpoints report;
        try {
            report = client.checkpoints(jobId);
        } catch (RuntimeException e) {
            return; // not running yet, or just ended
        }
        for (CheckpointSummary c : report.getCheckpointsList()) {
            into.put(c.getCheckpointId(), c);
        }
    }
}
