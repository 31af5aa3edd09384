package io.duraflow.taskmanager;

import static io.duraflow.taskmanager.TaskExecutorHarness.FIRST;
import static io.duraflow.taskmanager.TaskExecutorHarness.GRAPH;
import static io.duraflow.taskmanager.TaskExecutorHarness.KEEPS_TASKS;
import static io.duraflow.taskmanager.TaskExecutorHarness.attempt;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.config.RuntimeMode;
import io.duraflow.config.TaskManagerOptions;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.taskmanager.TaskExecutorHarness.Answer;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deployments on the TaskExecutor: the slots they take and share, attempts that already ran,
 * cancellation (also of a task still waiting for its plan), and the plans built for them (one per
 * task of a streaming job, a build that blocks or throws). Driven step by step through
 * {@link TaskExecutorHarness}.
 */
class TaskExecutorDeploymentTest {
    @TempDir
    Path dir;

    private TaskExecutorHarness harness;

    @BeforeEach
    void create(TestInfo test) throws Exception {
        harness = new TaskExecutorHarness(dir, test.getTags().contains(KEEPS_TASKS));
    }

    @AfterEach
    void close() {
        harness.close();
    }

    @Test
    void deploysIntoFreeSlotsAndRefusesWhenAllAreBusy() {
        harness.register(FIRST);

        Answer first = harness.deploy(FIRST, 0, 0);
        Answer second = harness.deploy(FIRST, 1, 0);
        Answer third = harness.deploy(FIRST, 2, 0);
        harness.mailbox.runDue();

        assertThat(first.ok).isTrue();
        assertThat(second.ok).isTrue();
        assertThat(third.refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(harness.startedTaskThreads).hasSize(2);

        harness.endTask(attempt(0, 0), TaskState.FINISHED);
        Answer again = harness.deploy(FIRST, 2, 0);
        harness.mailbox.runDue();

        assertThat(again.ok).as("the finished task's slot is free").isTrue();
        assertThat(harness.startedTaskThreads).hasSize(3);
    }

    @Test
    void deploymentsThatNameTheSameSlotShareItUntilTheLastEnds() {
        harness.register(FIRST);

        Answer a = harness.deploy(FIRST, 0, 0, "job/default/0");
        Answer b = harness.deploy(FIRST, 1, 0, "job/default/0");
        Answer c = harness.deploy(FIRST, 2, 0, "job/default/1");
        Answer d = harness.deploy(FIRST, 3, 0, "job/default/2");
        Answer e = harness.deploy(FIRST, 4, 0, "job/default/1");
        harness.mailbox.runDue();

        assertThat(List.of(a, b, c, e)).allMatch(answer -> answer.ok);
        assertThat(d.refused.getStatus().getCode()).as("a third name needs a third slot")
                .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(harness.startedTaskThreads).hasSize(4);

        harness.endTask(attempt(0, 0), TaskState.FINISHED);
        Answer stillFull = harness.deploy(FIRST, 3, 0, "job/default/2");
        harness.mailbox.runDue();
        assertThat(stillFull.refused.getStatus().getCode()).as("job/default/0 still runs a task")
                .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);

        harness.endTask(attempt(1, 0), TaskState.FINISHED);
        Answer again = harness.deploy(FIRST, 3, 0, "job/default/2");
        harness.mailbox.runDue();
        assertThat(again.ok).as("the last task of job/default/0 ended: its slot is free").isTrue();
    }

    @Test
    void aDeploymentOfAnAttemptThatAlreadyRanIsRefused() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        Answer twice = harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        assertThat(twice.refused.getStatus().getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
    }

    @Test
    void cancelStopsARunningTask() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        Answer answer = new Answer();
        harness.executor.cancel(FIRST.sessionId(), attempt(0, 0), answer);
        harness.mailbox.runDue();

        assertThat(answer.ok).isTrue();
        assertThat(harness.tasks.get("0#0").cancelled).isTrue();
    }

    @Test
    void cancelEndsATaskWaitingForItsPlanWhichThenNeverStarts() {
        List<Runnable> queuedBuilds = new ArrayList<>();
        harness.planBuilds = queuedBuilds::add;
        harness.register(FIRST);
        Answer deployed = harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        assertThat(deployed.ok).isTrue();

        harness.executor.cancel(FIRST.sessionId(), attempt(0, 0), new Answer());
        harness.mailbox.runDue();
        queuedBuilds.forEach(Runnable::run);
        harness.mailbox.runDue();

        assertThat(harness.reportsOf(TaskState.CANCELED)).hasSize(1);
        assertThat(harness.startedTaskThreads).isEmpty();
    }

    @Test
    void tasksOfAStreamingJobGetAPlanEachWhileTasksOfABatchJobShareOne() {
        // Streaming functions keep per-task fields (state handles set in open()): one shared
        // function object would let the second task's open() redirect the first task's state.
        harness.planBuilder = (jobClass, params, parallelism, mode) ->
                JobPlans.build(jobClass, params, parallelism, mode);
        harness.register(FIRST);
        for (int subtask = 0; subtask < 2; subtask++) {
            Answer answer = new Answer();
            harness.executor.deploy(TaskDeployment.newBuilder().setJmSessionId(FIRST.sessionId())
                    .setAttempt(attempt(subtask, 0)).setJobClass(TinyJob.class.getName())
                    .putConfig("execution.runtime-mode", "streaming").setDefaultParallelism(1)
                    .setFingerprint(JobPlans.build(TinyJob.class.getName(), Map.of(), 1,
                            RuntimeMode.STREAMING).fingerprint())
                    .setParallelism(2).build(), answer);
            harness.mailbox.runDue();
            assertThat(answer.ok).isTrue();
        }
        assertThat(harness.startedTaskThreads).hasSize(2);
        assertThat(harness.taskGraphs.get("0#0").mode()).isEqualTo(RuntimeMode.STREAMING);
        assertThat(harness.taskGraphs.get("0#0")).isNotSameAs(harness.taskGraphs.get("1#0"));
        assertThat(harness.taskGraphs.get("0#0").fingerprint()).isEqualTo(harness.taskGraphs.get("1#0").fingerprint());
    }

    @Test
    void aJobWhoseBuildBlocksFailsTheDeploymentNamingTheJobClassAndItsBuildIsInterrupted() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        harness.pools.add(pool);
        harness.planBuilds = pool;
        harness.planBuilder = JobPlans::build;
        harness.register(FIRST);
        Answer deployed = new Answer();
        harness.executor.deploy(TaskDeployment.newBuilder().setJmSessionId(FIRST.sessionId()).setAttempt(attempt(0, 0))
                .setJobClass(BlockingBuildJob.class.getName()).setDefaultParallelism(1).setFingerprint("f")
                .setParallelism(1).build(), deployed);
        harness.mailbox.runDue();
        assertThat(deployed.ok).isTrue();
        assertThat(BlockingBuildJob.BUILDING.await(10, TimeUnit.SECONDS)).isTrue();

        harness.mailbox.advance(TaskManagerOptions.PLAN_BUILD_TIMEOUT.defaultValue().toMillis() - 1);
        assertThat(harness.reportsOf(TaskState.FAILED)).as("not before the timeout").isEmpty();
        harness.mailbox.advance(1);

        assertThat(harness.reportsOf(TaskState.FAILED)).singleElement()
                .satisfies(report -> assertThat(report.getFailure())
                        .isEqualTo("building the plan of job class " + BlockingBuildJob.class.getName()
                                + " did not finish within 60000 ms (taskmanager.plan-build.timeout);"
                                + " make sure its build() does not block"));
        assertThat(BlockingBuildJob.INTERRUPTED.await(10, TimeUnit.SECONDS)).as("the build was interrupted")
                .isTrue();
        assertThat(harness.startedTaskThreads).isEmpty();
        assertThat(harness.deploy(FIRST, 1, 0)).as("the slot is free again").satisfies(answer -> {
            harness.mailbox.runDue();
            assertThat(answer.ok).isTrue();
        });
    }

    @Test
    void aPlanBuildThatThrowsFailsTheDeploymentAndTheNextDeploymentBuildsAgain() {
        int[] builds = {0};
        harness.planBuilder = (jobClass, params, parallelism, mode) -> {
            if (builds[0]++ == 0) {
                throw new IllegalArgumentException("no such parameter 'x'");
            }
            return GRAPH;
        };
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        assertThat(harness.reportsOf(TaskState.FAILED)).singleElement()
                .satisfies(report -> assertThat(report.getFailure())
                        .isEqualTo("building the plan of job class " + TinyJob.class.getName()
                                + " failed: IllegalArgumentException: no such parameter 'x'"));

        harness.deploy(FIRST, 0, 1);
        harness.mailbox.runDue();

        assertThat(builds[0]).isEqualTo(2);
        assertThat(harness.startedTaskThreads).hasSize(1);
    }
}
