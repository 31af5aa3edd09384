package io.duraflow.cli;

import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "status", description = "Shows a job's state and its vertices.")
final class StatusCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    Duraflow root;

    @Parameters(index = "0", paramLabel = "JOB_ID")
    String jobId;

    @Override
    public Integer call() throws Exception {
        return root.withClient((client, config) -> {
            JobStatus status = client.status(jobId);
            System.out.println("Job " + status.getJobId() + " (" + status.getJobName() + "): "
                    + JobRunner.stateName(status.getState()) + ", " + status.getRestarts() + " restarts"
                    + (status.getRestoredTasks() > 0 ? ", " + status.getRestoredTasks()
                            + " finished tasks kept through a JobManager failover" : ""));
            if (!status.getFailure().isEmpty()) {
                System.out.println("  cause: " + status.getFailure());
            }
            if (!status.getWaitingFor().isEmpty()) {
                System.out.println("  waiting: " + status.getWaitingFor());
            }
            if (status.hasEventLog()) {
                var log = status.getEventLog();
                System.out.println(log.getStoppedCause().isEmpty()
                        ? String.format("  job event log: %,d events recorded", log.getWrittenEvents())
                        : String.format("  job event log: STOPPED after %,d events (%s), %,d events not recorded;"
                                + " if the JobManager fails, the work since then runs again",
                                log.getWrittenEvents(), log.getStoppedCause(), log.getDroppedEvents()));
            }
            for (VertexStatus v : status.getVerticesList()) {
                System.out.printf("  %-50s %3d/%-3s finished, %d running, %,d records in, %,d out%n", v.getName(),
                        v.getFinished(), v.getParallelism() == 0 ? "?" : Integer.toString(v.getParallelism()),
                        v.getRunning(), v.getRecordsIn(), v.getRecordsOut());
                if (v.hasRates()) {
                    System.out.println(JobRunner.ratesLine(v.getRates()));
                }
                if (v.getTasksList().stream().anyMatch(task -> task.getAttempt() > 0)) {
                    StringBuilder attempts = new StringBuilder("    attempt per subtask:");
                    v.getTasksList().forEach(task -> attempts.append(" #").append(task.getAttempt()));
                    System.out.println(attempts);
                }
            }
            return 0;
        });
    }
}
