package io.duraflow.cli;

import io.duraflow.rpc.proto.JobStatus;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "list", description = "Lists the jobs the JobManager knows.")
final class ListCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    Duraflow root;

    @Override
    public Integer call() throws Exception {
        return root.withClient((client, config) -> {
            List<JobStatus> jobs = client.list().getJobsList();
            if (jobs.isEmpty()) {
                System.out.println("No jobs");
            }
            System.out.printf("%-20s %-10s %-20s %-24s %s%n", "JOB ID", "STATE", "NAME", "SUBMITTED", "DURATION");
            for (JobStatus job : jobs) {
                System.out.println(JobRunner.listLine(job, System.currentTimeMillis()));
            }
            return 0;
        });
    }
}
