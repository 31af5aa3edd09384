package io.duraflow.cli;

import io.duraflow.config.Configuration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "stop", description = "Stops the local cluster's processes.")
final class LocalStopCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    LocalCommand local;

    @Override
    public Integer call() throws Exception {
        Configuration config = local.root.configuration();
        int stopped = local.cluster(config, System.out).stop();
        System.out.println(stopped == 0 ? "No local cluster was running in " + local.root.workDirectory(config)
                : "Stopped " + stopped + " processes");
        return 0;
    }
}
