package io.duraflow.cli;

import io.duraflow.config.Configuration;
import java.io.PrintStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "local", description = "Manages a cluster of local processes.",
        subcommands = {LocalStartCommand.class, LocalStopCommand.class, LocalStatusCommand.class})
final class LocalCommand {
    @CommandLine.ParentCommand
    Duraflow root;

    LocalCluster cluster(Configuration config, PrintStream out) {
        return new LocalCluster(root.workDirectory(config), root.overrides, out::println);
    }
}
