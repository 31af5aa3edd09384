package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.cli.TaskRuns.TaskKey;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskRunsTest {
    private static TaskStatus task(int attempt, String state) {
        return TaskStatus.newBuilder().setAttempt(attempt).setState(state).build();
    }

    /** A vertex as a leader reports it: {@code attempts} are the runs that leader started itself. */
    private static VertexStatus vertex(int id, int attemptsStartedByThisLeader, TaskStatus... tasks) {
        return VertexStatus.newBuilder().setId(id).setName("v" + id).setParallelism(tasks.length)
                .setAttempts(attemptsStartedByThisLeader).addAllTasks(java.util.List.of(tasks)).build();
    }

    @Test
    void withoutFailoverEveryStartedAttemptCountsOnce() {
        // v0/1 failed once and ran again; v1 ran once per subtask.
        JobStatus status = JobStatus.newBuilder().setState(JobState.JOB_FINISHED).setRestarts(1)
                .addVertices(vertex(0, 3, task(0, "FINISHED"), task(1, "FINISHED")))
                .addVertices(vertex(1, 2, task(0, "FINISHED"), task(0, "FINISHED"))).build();

        assertThat(TaskRuns.tasksRun(status)).isEqualTo(5);
    }

    @Test
    void afterAFailoverTheEarlierLeadersRunsCountToo() {
        // Regression: the old leader ran v0/0..3 (v0/0 and v0/1 finished and were kept, v0/2 and v0/3
        // were running when it died); the new leader ran v0/2 and v0/3 again as attempt 1 and all
        // of v1. Its own counts ('attempts') are 2 and 2: the summary said 4 tasks run; 8 ran.
        JobStatus status = JobStatus.newBuilder().setState(JobState.JOB_FINISHED).setRestoredTasks(2)
                .addVertices(vertex(0, 2, task(0, "FINISHED"), task(0, "FINISHED"), task(1, "FINISHED"),
                        task(1, "FINISHED")))
                .addVertices(vertex(1, 2, task(0, "FINISHED"), task(0, "FINISHED"))).build();

        assertThat(TaskRuns.tasksRun(status)).isEqualTo(8);
    }

    @Test
    void anAttemptThatHasNotStartedIsNotARun() {
        // v0/0 waits for its restart delay as attempt 2 (attempts 0 and 1 ran); v0/1 never started;
        // v0/2 was cancelled (maybe before it started), v0/3 is being deployed.
        JobStatus status = JobStatus.newBuilder().setState(JobState.JOB_RUNNING)
                .addVertices(vertex(0, 3, task(2, "CREATED"), task(0, "CREATED"), task(0, "CANCELED"),
                        task(0, "DEPLOYING"))).build();

        assertThat(TaskRuns.tasksRun(status)).isEqualTo(3);
    }

    @Test
    void aStoredResultWithoutTaskStatesFallsBackToTheLeadersCount() {
        // A stored result of a failed job keeps attempt numbers without states, and older ones no tasks.
        JobStatus status = JobStatus.newBuilder().setState(JobState.JOB_FAILED)
                .addVertices(vertex(0, 4, task(1, ""), task(0, "")))
                .addVertices(vertex(1, 2)).build();

        assertThat(TaskRuns.tasksRun(status)).isEqualTo(6);
    }

    @Test
    void aFinishedTaskRanAgainIffItsAttemptNumberWentUp() {
        JobStatus before = JobStatus.newBuilder()
                .addVertices(vertex(0, 4, task(0, "FINISHED"), task(0, "FINISHED"), task(0, "RUNNING"),
                        task(0, "DEPLOYING")))
                .addVertices(vertex(1, 0)).build();
        JobStatus after = JobStatus.newBuilder()
                .addVertices(vertex(0, 2, task(0, "FINISHED"), task(1, "FINISHED"), task(1, "FINISHED"),
                        task(1, "FINISHED")))
                .addVertices(vertex(1, 1, task(0, "FINISHED"))).build();

        Map<TaskKey, Integer> finished = TaskRuns.finishedAttempts(before);

        assertThat(finished).containsExactly(Map.entry(new TaskKey(0, 0), 0), Map.entry(new TaskKey(0, 1), 0));
        assertThat(TaskRuns.ranAgain(finished, after)).containsExactly(new TaskKey(0, 1));
        assertThat(TaskRuns.ranAgain(finished, before)).isEmpty();
    }

    @Test
    void onlyRunningTasksAreRunning() {
        JobStatus status = JobStatus.newBuilder()
                .addVertices(vertex(0, 4, task(1, "DEPLOYING"), task(1, "RUNNING"), task(0, "FINISHED"),
                        task(1, "CREATED"))).build();

        assertThat(TaskRuns.running(status)).isEqualTo(1);
    }
}
