package io.duraflow.cli;

import io.duraflow.config.Configuration;
import io.duraflow.config.JobManagerOptions;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "start", description = "Starts a JobManager and TaskManagers in the background.")
final class LocalStartCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    LocalCommand local;

    @Option(names = "--taskmanagers", defaultValue = "2", description = "TaskManagers to start (default: 2)")
    int taskManagers;

    @Option(names = "--jobmanagers", defaultValue = "1", description = "JobManagers to start (default: 1);"
            + " more than one starts a ZooKeeper server too and runs with high availability")
    int jobManagers;

    @Override
    public Integer call() throws Exception {
        Configuration config = local.root.configuration();
        LocalCluster cluster = local.cluster(config, System.out);
        String address = cluster.start(taskManagers, jobManagers, config.get(JobManagerOptions.RPC_PORT),
                Duration.ofSeconds(60));
        System.out.println("Local cluster running at " + address + "; stop it with 'duraflow local stop'");
        return 0;
    }
}
