package io.duraflow.cli;

import io.duraflow.config.Configuration;
import io.duraflow.jobmanager.JobManagerRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "jobmanager", description = "Runs a JobManager in the foreground.")
final class JobManagerCommand implements Callable<Integer>, Duraflow.ServerCommand {
    @CommandLine.ParentCommand
    Duraflow root;

    @Option(names = "--address-file", hidden = true, description = "Write host:port here once listening")
    Path addressFile;

    @Override
    public Integer call() throws Exception {
        Configuration config = root.configuration();
        JobManagerRunner runner = JobManagerRunner.start(config);
        if (addressFile != null) {
            Path tmp = addressFile.resolveSibling(addressFile.getFileName() + ".tmp");
            Files.writeString(tmp, runner.address(), StandardCharsets.UTF_8);
            Files.move(tmp, addressFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        Duraflow.awaitShutdown(runner);
        return 0;
    }
}
