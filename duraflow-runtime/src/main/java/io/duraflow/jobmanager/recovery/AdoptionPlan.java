package io.duraflow.jobmanager.recovery;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a new leader does with the running work of a job it takes over; made by {@link
 * AdoptionPlanner}, which documents the rules. Every map iterates in ascending key order.
 *
 * @param outcome           the job-level decision
 * @param fallbackReason    why adoption was not tried ({@link Outcome#FALLBACK}), else empty
 * @param decisions         one decision per subtask of every vertex whose parallelism is known
 * @param toCancel          reported running tasks on live TaskManagers that are not adopted: the
 *                          new leader cancels them (a stale attempt, or a task that runs again)
 * @param highestAttempts   per subtask, the highest attempt the log or any report named: a later
 *                          reset of the subtask must go above it, so that no attempt number (and
 *                          thus no partition id) repeats one a TaskManager may still hold
 * @param recovery          batch: the {@link RecoveryPlanner}'s plan with adoption applied (adopted
 *                          subtasks removed from {@code nextAttempts} and {@code splitsToReturn},
 *                          attempts raised above every reported one); null for a streaming job
 * @param adoptedSplits     batch: by source node, then subtask, the splits adopted readers hold;
 *                          the JobMaster registers them as assigned, never gives them back
 * @param restoreCheckpoint streaming: the checkpoint that restarted tasks restore (0: empty state);
 *                          checkpoints above it that tasks acknowledged are aborted
 * @param notifyCompleted   streaming: adopted tasks that were not told that {@code
 *                          restoreCheckpoint} completed; the new leader tells them (sinks commit)
 * @param notes             lines for the log, the job status and the demo: the outcome, one per
 *                          subtask, then the cancelled tasks
 */
public record AdoptionPlan(Outcome outcome, String fallbackReason, Map<ExecutionKey, TaskDecision> decisions,
        List<ReportedTask> toCancel, Map<ExecutionKey, Integer> highestAttempts, RecoveryPlan recovery,
        Map<Integer, Map<Integer, List<byte[]>>> adoptedSplits, long restoreCheckpoint,
        Set<ExecutionKey> notifyCompleted, List<String> notes) {

    /** The job-level decision. */
    public enum Outcome {
        /** Every subtask is adopted or finished: nothing runs again. */
        ADOPT_ALL,
        /** Some subtasks are adopted, others run again. */
        ADOPT_SOME,
        /** Nothing is adopted (nothing was reported, or nothing reported could be); no contradiction. */
        ADOPT_NONE,
        /**
         * The reports contradict the recovered state or each other: nothing is adopted, every
         * reported running task is cancelled, and the job recovers as without adoption (batch: the
         * recovery plan; streaming: every task restores the latest completed checkpoint).
         */
        FALLBACK
    }

    public AdoptionPlan {
        decisions = Collections.unmodifiableMap(new TreeMap<>(decisions));
        toCancel = List.copyOf(toCancel);
        highestAttempts = Collections.unmodifiableMap(new TreeMap<>(highestAttempts));
        Map<Integer, Map<Integer, List<byte[]>>> splits = new TreeMap<>();
        adoptedSplits.forEach((node, perSubtask) -> {
            Map<Integer, List<byte[]>> inner = new TreeMap<>();
            perSubtask.forEach((subtask, list) -> inner.put(subtask, List.copyOf(list)));
            splits.put(node, Collections.unmodifiableMap(inner));
        });
        adoptedSplits = Collections.unmodifiableMap(splits);
        notifyCompleted = Collections.unmodifiableSet(new LinkedHashSet<>(new java.util.TreeSet<>(notifyCompleted)));
        notes = List.copyOf(notes);
    }

    /** The decision for one subtask, or null if its vertex's parallelism is not known. */
    public TaskDecision decision(int vertex, int subtask) {
        return decisions.get(new ExecutionKey(vertex, subtask));
    }

    public List<TaskDecision.Adopt> adopted() {
        return ofType(TaskDecision.Adopt.class);
    }

    public List<TaskDecision.Restart> restarted() {
        return ofType(TaskDecision.Restart.class);
    }

    public List<TaskDecision.AlreadyFinished> finished() {
        return ofType(TaskDecision.AlreadyFinished.class);
    }

    private <T extends TaskDecision> List<T> ofType(Class<T> type) {
        List<T> found = new ArrayList<>();
        for (TaskDecision decision : decisions.values()) {
            if (type.isInstance(decision)) {
                found.add(type.cast(decision));
            }
        }
        return found;
    }

    /** The outcome of a plan with these decisions, when no contradiction forced a fallback. */
    static Outcome outcomeOf(Map<ExecutionKey, TaskDecision> decisions) {
        boolean adopted = false;
        boolean restarted = false;
        for (TaskDecision decision : decisions.values()) {
            adopted |= decision instanceof TaskDecision.Adopt;
            restarted |= decision instanceof TaskDecision.Restart;
        }
        return !restarted ? Outcome.ADOPT_ALL : adopted ? Outcome.ADOPT_SOME : Outcome.ADOPT_NONE;
    }

    /** Rule 4's notes: the outcome (with counts), one line per subtask, one per cancelled task. */
    static List<String> notes(AdoptionPlan.Outcome outcome, String contradiction,
            Map<ExecutionKey, TaskDecision> decisions, List<ReportedTask> cancel, Set<ExecutionKey> reported) {
        int adopted = 0;
        int finished = 0;
        int restarted = 0;
        for (TaskDecision decision : decisions.values()) {
            if (decision instanceof TaskDecision.Adopt) {
                adopted++;
            } else if (decision instanceof TaskDecision.AlreadyFinished) {
                finished++;
            } else {
                restarted++;
            }
        }
        List<String> notes = new ArrayList<>();
        notes.add("adoption: " + outcome + (contradiction == null ? "" : " (" + contradiction + ")") + ": " + adopted
                + " adopted, " + finished + " finished, " + restarted + " run again, " + cancel.size() + " cancelled, "
                + reported.size() + " subtasks reported");
        decisions.values().forEach(decision -> notes.add(decision.describe()));
        for (ReportedTask task : cancel) {
            notes.add("cancel " + task.name());
        }
        return notes;
    }
}
