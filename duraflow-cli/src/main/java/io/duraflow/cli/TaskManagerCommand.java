package io.duraflow.cli;

import io.duraflow.config.Configuration;
import io.duraflow.taskmanager.TaskManagerRunner;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "taskmanager", description = "Runs a TaskManager in the foreground.")
final class TaskManagerCommand implements Callable<Integer>, Duraflow.ServerCommand {
    @CommandLine.ParentCommand
    Duraflow root;

    @Option(names = "--registration-timeout", defaultValue = "60s", paramLabel = "DURATION",
            description = "Give up when the JobManager cannot be reached this long (default: ${DEFAULT-VALUE})")
    String registrationTimeout;

    @Override
    public Integer call() throws Exception {
        Configuration config = root.configuration();
        String address = root.jobManagerAddress(config);
        TaskManagerRunner runner = TaskManagerRunner.start(config, address,
                io.duraflow.config.Durations.parse(registrationTimeout).toMillis());
        Duraflow.awaitShutdown(runner);
        return 0;
    }
}
