package io.duraflow.cli;

import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Prints a terminated job's result from the job result store, at any time after it ended. */
@Command(name = "result", description = "Prints a terminated job's result: status, times, records, failure cause.")
final class ResultCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    Duraflow root;

    @Parameters(index = "0", paramLabel = "JOB_ID")
    String jobId;

    @CommandLine.Mixin
    Duraflow.ShowOption show = new Duraflow.ShowOption();

    @Override
    public Integer call() throws Exception {
        return root.withClient((client, config) -> {
            JobResult result = client.result(jobId);
            if (!JobRunner.isTerminal(result.getStatus().getState())) {
                System.out.println("Job " + jobId + " has not ended yet; see 'duraflow status " + jobId + "'");
                return 1;
            }
            print(result, show.records);
            return result.getStatus().getState() == JobState.JOB_FINISHED ? 0 : 1;
        });
    }

    static void print(JobResult result, int show) {
        var status = result.getStatus();
        if (status.getResultUnreadable()) {
            new JobRunner(null, System.out).printResult(result, null, show);
            return;
        }
        System.out.println("Job " + status.getJobId() + " (" + status.getJobName() + ", " + status.getJobClass() + ")");
        System.out.println("  submitted: " + (status.getSubmittedAtMs() > 0 ? Instant.ofEpochMilli(status.getSubmittedAtMs())
                : "unknown"));
        System.out.println("  ended:     " + (status.getEndedAtMs() > 0 ? Instant.ofEpochMilli(status.getEndedAtMs())
                : "unknown"));
        System.out.println("  params:    " + result.getParamsMap());
        JobGraph graph = null;
        try {
            graph = JobPlans.build(status.getJobClass(), result.getParamsMap(), 1);
        } catch (RuntimeException e) {
            System.out.println("  (collected records cannot be decoded here: " + e.getMessage() + ")");
        }
        if (!result.getCountersMap().isEmpty()) {
            System.out.println("  counters:  " + result.getCountersMap());
        }
        new JobRunner(null, System.out).printResult(result, graph, show);
    }
}
