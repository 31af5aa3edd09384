package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.AdoptionFixtures.batch;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.pid;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.sourcesFinishedConsumersDeployed;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.streaming;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.recovery.AdoptionPlan.Outcome;
import io.duraflow.jobmanager.recovery.ReportedTask.State;
import io.duraflow.plan.JobGraph;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * Invariants of the adoption decision over seeded random reports (each seed is one scenario,
 * replayable): every subtask gets exactly one decision, a lost TaskManager's tasks are never
 * adopted, contradictory reports never lead to adoption, every running report is either adopted
 * or cancelled, new attempts go above every reported one, streaming regions are decided whole,
 * and the order of the reports does not matter.
 */
class AdoptionPlannerPropertiesTest {
    private static final List<String> TASK_MANAGERS = List.of("tm-a", "tm-b", "tm-c");
    private static final JobGraph STREAMING = AdoptionFixtures.twoRegions();
    private static final JobGraph BATCH = AdoptionFixtures.batchJob();

    // ------------------------------------------------------------------ streaming

    @Property(tries = 400)
    void streamingInvariants(@ForAll long seed) {
        Random random = new Random(seed);
        long latest = List.of(0L, 3L, 7L).get(random.nextInt(3));
        long initial = random.nextInt(4) == 0 ? 2 : 0;
        StreamingCheckpointFacts facts = new StreamingCheckpointFacts(latest, initial);
        Set<String> lost = lostSubset(random);
        List<ReportedTask> reports = new ArrayList<>();
        for (int vertex = 0; vertex < 4; vertex++) {
            for (int subtask = 0; subtask < 2; subtask++) {
                int dice = random.nextInt(40);
                if (dice > 0) {  // 1 in 40: not reported
                    reports.add(streamingReport(random, vertex, subtask, facts, dice < 35));
                }
                if (random.nextInt(10) == 0) {  // the cancel of an older attempt was in flight, or a duplicate
                    reports.add(streamingReport(random, vertex, subtask, facts, false));
                }
            }
        }

        AdoptionPlan plan = AdoptionPlanner.planStreaming(STREAMING, facts, reports, lost);
        Statistics.collect(plan.outcome());

        assertEverySubtaskDecidedOnce(plan, STREAMING, 2);
        assertAdoptedOnlyWhatLiveTaskManagersRun(plan, reports, lost);
        assertRunningReportsAdoptedOrCancelled(plan, reports, lost);
        assertNewAttemptsAboveReported(plan, reports);
        if (contradictsStreaming(reports, facts)) {
            assertThat(plan.outcome()).isEqualTo(Outcome.FALLBACK);
            assertThat(plan.adopted()).isEmpty();
            assertThat(plan.finished()).isEmpty();
        }
        for (Set<Integer> region : new StreamingAdoption(STREAMING, facts, List.of(), Set.of()).regions()) {
            long restarted = plan.restarted().stream().filter(r -> region.contains(r.key().vertex())).count();
            assertThat(restarted).as("region %s is decided whole", region).isIn(0L, region.size() * 2L);
        }
        for (TaskDecision.Adopt adopt : plan.adopted()) {
            ReportedTask.StreamingProgress progress = (ReportedTask.StreamingProgress) find(reports, adopt).progress();
            if (latest > 0) {
                assertThat(progress.restoredCheckpointId() == latest || progress.lastAcknowledgedId() >= latest).isTrue();
            }
            assertThat(progress.lastCompletedId()).isLessThanOrEqualTo(latest);
            assertThat(progress.splitsReceivedSince(facts.restoreId())).isZero();
        }
        assertOrderDoesNotMatter(plan, AdoptionPlanner.planStreaming(STREAMING, facts, reversed(reports), lost));
    }

    /** A report of a task that holds the restored checkpoint's state (if {@code consistent}), or of anything. */
    private static ReportedTask streamingReport(Random random, int vertex, int subtask, StreamingCheckpointFacts facts,
            boolean consistent) {
        long latest = facts.latestCompletedId();
        String tm = TASK_MANAGERS.get(random.nextInt(3));
        if (consistent) {
            return streaming(vertex, subtask, 1, tm, facts.restoreId(), latest + random.nextInt(2),
                    Math.max(0, latest - random.nextInt(2)));
        }
        State state = State.values()[random.nextInt(State.values().length)];
        String run = random.nextInt(5) == 0 ? "run-2" : "run-1";
        long restored = random.nextInt(5) > 0 ? facts.restoreId() : random.nextInt(10);
        long acknowledged = random.nextBoolean() ? latest + random.nextInt(2) : random.nextInt(10);
        long completed = random.nextInt(5) > 0 ? Math.max(0, latest - random.nextInt(2)) : random.nextInt(10);
        List<ReportedTask.SplitsReceived> splits = random.nextInt(5) == 0
                ? List.of(new ReportedTask.SplitsReceived(random.nextInt(10), List.of(utf8("split"))))
                : List.of();
        return streaming(vertex, subtask, random.nextInt(3), tm, state, run, restored, acknowledged, completed, splits);
    }

    /** Rule 1 and 3a, stated independently of the planner. */
    private static boolean contradictsStreaming(List<ReportedTask> reports, StreamingCheckpointFacts facts) {
        if (hasDuplicateAttempt(reports)) {
            return true;
        }
        for (ReportedTask report : reports) {
            ReportedTask.StreamingProgress progress = (ReportedTask.StreamingProgress) report.progress();
            long restored = progress.restoredCheckpointId();
            if (progress.lastCompletedId() > facts.latestCompletedId()
                    || (restored > facts.latestCompletedId() && restored != facts.initialRestoreId())) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ batch

    @Property(tries = 400)
    void batchInvariants(@ForAll long seed) {
        Random random = new Random(seed);
        Set<String> lost = lostSubset(random);
        Map<String, String> available = new HashMap<>();
        if (!lost.contains("tm-a") && random.nextInt(5) > 0) {
            available.put(pid(0, 0, 0, 0), "tm-a");
        }
        if (!lost.contains("tm-b") && random.nextInt(5) > 0) {
            available.put(pid(0, 1, 0, 0), "tm-b");
        }
        List<ReportedTask> reports = new ArrayList<>();
        boolean contradiction = false;
        for (int subtask = 0; subtask < 2; subtask++) {
            int count = new int[] {0, 1, 1, 1, 2}[random.nextInt(5)];
            for (int i = 0; i < count; i++) {
                reports.add(batchConsumer(random, subtask));
            }
            switch (random.nextInt(8)) {
                case 0 -> reports.add(batch(subtask == 0 ? "tm-a" : "tm-b", 0, subtask, 0, State.FINISHED, List.of(),
                        List.of(new ReportedTask.OutputPartition(0, pid(0, subtask, 0, 0))), List.of()));
                case 1 -> {
                    reports.add(batch("tm-c", 0, subtask, 0, State.FINISHED, List.of(),
                            List.of(new ReportedTask.OutputPartition(0, "elsewhere")), List.of()));
                    contradiction |= available.containsKey(pid(0, subtask, 0, 0));  // only a kept finish is checked
                }
                default -> { }
            }
        }
        contradiction |= hasDuplicateAttempt(reports);

        AdoptionPlan plan = AdoptionPlanner.planBatch(BATCH, sourcesFinishedConsumersDeployed(), available, reports,
                lost);
        Statistics.collect(plan.outcome());

        assertEverySubtaskDecidedOnce(plan, BATCH, 2);
        assertAdoptedOnlyWhatLiveTaskManagersRun(plan, reports, lost);
        assertRunningReportsAdoptedOrCancelled(plan, reports, lost);
        assertNewAttemptsAboveReported(plan, reports);
        if (contradiction) {
            assertThat(plan.outcome()).isEqualTo(Outcome.FALLBACK);
            assertThat(plan.adopted()).isEmpty();
        }
        for (TaskDecision.Adopt adopt : plan.adopted()) {
            assertThat(adopt.attempt()).as("only the logged attempt is adopted").isZero();
            assertThat(plan.decision(0, 0)).isInstanceOf(TaskDecision.AlreadyFinished.class);
            assertThat(plan.decision(0, 1)).isInstanceOf(TaskDecision.AlreadyFinished.class);
        }
        Map<ExecutionKey, Integer> restarts = new HashMap<>();
        plan.restarted().forEach(restart -> restarts.put(restart.key(), restart.attempt()));
        assertThat(plan.recovery().nextAttempts()).isEqualTo(restarts);
        assertOrderDoesNotMatter(plan, AdoptionPlanner.planBatch(BATCH, sourcesFinishedConsumersDeployed(), available,
                reversed(reports), lost));
    }

    /** A v1 consumer report: usually reading exactly the kept partitions, sometimes not, sometimes ended. */
    private static ReportedTask batchConsumer(Random random, int subtask) {
        String tm = TASK_MANAGERS.get(random.nextInt(3));
        int attempt = random.nextInt(4) == 0 ? 1 : 0;
        State state = random.nextInt(4) == 0 ? State.values()[random.nextInt(State.values().length)] : State.RUNNING;
        int from = subtask == 0 ? 0 : 64;
        int to = random.nextInt(6) == 0 ? from + 1 : from + 64;
        List<ReportedTask.InputRead> inputs = new ArrayList<>();
        inputs.add(new ReportedTask.InputRead(0, pid(0, 0, 0, 0), "tm-a", from, to));
        if (random.nextInt(6) > 0) {
            inputs.add(new ReportedTask.InputRead(0, pid(0, 1, 0, 0), "tm-b", from, to));
        }
        return batch(tm, 1, subtask, attempt, state, inputs, List.of(), List.of());
    }

    // ------------------------------------------------------------------ shared invariants

    private static Set<String> lostSubset(Random random) {
        Set<String> lost = new TreeSet<>();
        for (String tm : TASK_MANAGERS) {
            if (random.nextInt(4) == 0) {
                lost.add(tm);
            }
        }
        return lost;
    }

    private static boolean hasDuplicateAttempt(List<ReportedTask> reports) {
        Set<String> seen = new HashSet<>();
        for (ReportedTask report : reports) {
            if (!seen.add(report.key() + "#" + report.attempt())) {
                return true;
            }
        }
        return false;
    }

    /** Every subtask has exactly one decision (the plan is a map by subtask), about itself. */
    private static void assertEverySubtaskDecidedOnce(AdoptionPlan plan, JobGraph graph, int parallelism) {
        Set<ExecutionKey> all = new TreeSet<>();
        for (int vertex = 0; vertex < graph.vertices().size(); vertex++) {
            for (int subtask = 0; subtask < parallelism; subtask++) {
                all.add(new ExecutionKey(vertex, subtask));
            }
        }
        assertThat(plan.decisions().keySet()).isEqualTo(all);
        plan.decisions().forEach((key, decision) -> assertThat(decision.key()).isEqualTo(key));
        assertThat(plan.adopted().size() + plan.finished().size() + plan.restarted().size()).isEqualTo(all.size());
    }

    private static ReportedTask find(List<ReportedTask> reports, TaskDecision.Adopt adopt) {
        ReportedTask found = null;
        for (ReportedTask report : reports) {
            if (report.key().equals(adopt.key()) && report.attempt() == adopt.attempt()
                    && report.tmId().equals(adopt.tmId())) {
                assertThat(found).as("one report per adopted attempt").isNull();
                found = report;
            }
        }
        assertThat(found).as("the adopted task was reported").isNotNull();
        return found;
    }

    private static void assertAdoptedOnlyWhatLiveTaskManagersRun(AdoptionPlan plan, List<ReportedTask> reports,
            Set<String> lost) {
        for (TaskDecision.Adopt adopt : plan.adopted()) {
            assertThat(lost).as("a lost TaskManager's task is never adopted").doesNotContain(adopt.tmId());
            if (plan.recovery() == null) {  // streaming: a finished task is AlreadyFinished, not adopted
                assertThat(find(reports, adopt).state()).isEqualTo(State.RUNNING);
            } else {  // batch: one that finished while no leader decided is adopted with its final report
                assertThat(find(reports, adopt).state()).isIn(State.RUNNING, State.FINISHED);
            }
        }
        for (TaskDecision.AlreadyFinished done : plan.finished()) {
            if (plan.recovery() == null) {  // streaming: a finish comes from a report
                assertThat(lost).doesNotContain(done.tmId());
            }
        }
    }

    private static void assertRunningReportsAdoptedOrCancelled(AdoptionPlan plan, List<ReportedTask> reports,
            Set<String> lost) {
        Set<String> adopted = new HashSet<>();
        plan.adopted().forEach(adopt -> adopted.add(adopt.key() + "#" + adopt.attempt() + " on " + adopt.tmId()));
        Set<ReportedTask> cancelled = Collections.newSetFromMap(new IdentityHashMap<>());
        for (ReportedTask task : plan.toCancel()) {
            assertThat(task.state()).isEqualTo(State.RUNNING);
            assertThat(lost).doesNotContain(task.tmId());
            assertThat(cancelled.add(task)).as("%s cancelled once", task.name()).isTrue();
        }
        for (ReportedTask report : reports) {
            boolean live = report.state() == State.RUNNING && !lost.contains(report.tmId());
            boolean isAdopted = adopted.contains(report.name());
            boolean isCancelled = cancelled.contains(report);
            assertThat(isAdopted && isCancelled).as("%s adopted and cancelled", report.name()).isFalse();
            if (live) {
                assertThat(isAdopted || isCancelled).as("%s adopted or cancelled", report.name()).isTrue();
            } else {
                // Batch adopts a task that finished while no leader decided on it; nothing ended is cancelled.
                assertThat(isCancelled).as("%s cancelled", report.name()).isFalse();
                assertThat(isAdopted && (lost.contains(report.tmId()) || report.state() != State.FINISHED))
                        .as("%s adopted", report.name()).isFalse();
            }
        }
    }

    private static void assertNewAttemptsAboveReported(AdoptionPlan plan, List<ReportedTask> reports) {
        for (TaskDecision.Restart restart : plan.restarted()) {
            for (ReportedTask report : reports) {
                if (report.key().equals(restart.key())) {
                    assertThat(restart.attempt()).isGreaterThan(report.attempt());
                }
            }
            assertThat(restart.attempt()).isGreaterThan(plan.highestAttempts().getOrDefault(restart.key(), -1));
        }
    }

    private static void assertOrderDoesNotMatter(AdoptionPlan plan, AdoptionPlan reordered) {
        assertThat(reordered.decisions()).isEqualTo(plan.decisions());
        assertThat(reordered.outcome()).isEqualTo(plan.outcome());
        assertThat(reordered.toCancel()).extracting(ReportedTask::name)
                .containsExactlyInAnyOrderElementsOf(plan.toCancel().stream().map(ReportedTask::name).toList());
        assertThat(reordered.notifyCompleted()).isEqualTo(plan.notifyCompleted());
    }

    private static <T> List<T> reversed(List<T> list) {
        List<T> copy = new ArrayList<>(list);
        Collections.reverse(copy);
        return copy;
    }
}
