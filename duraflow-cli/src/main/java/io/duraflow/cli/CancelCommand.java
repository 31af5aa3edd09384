package io.duraflow.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "cancel", description = "Cancels a running job; with --savepoint, only once a savepoint of it"
        + " completed (if the savepoint fails, the job keeps running and the exit code is 1).")
final class CancelCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    Duraflow root;

    @Parameters(index = "0", paramLabel = "JOB_ID")
    String jobId;

    @Option(names = "--savepoint", arity = "0..1", fallbackValue = "", paramLabel = "DIR",
            description = "Take a savepoint first, under DIR (default: execution.checkpointing.savepoint-dir)")
    String savepoint;

    @Override
    public Integer call() throws Exception {
        return root.withClient((client, config) -> {
            if (savepoint != null) {
                SavepointCommand.take(client, config, jobId, savepoint, true, System.out, root);
                return 0;
            }
            client.cancel(jobId);
            System.out.println("Cancelling job " + jobId);
            return 0;
        });
    }
}
