package io.duraflow.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "events", description = "Prints a job's event log (what batch job recovery replays).")
final class EventsCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    Duraflow root;

    @Parameters(index = "0", paramLabel = "JOB_ID")
    String jobId;

    @Override
    public Integer call() throws Exception {
        return root.withClient((client, config) -> {
            var events = client.events(jobId);
            for (String warning : events.getWarningsList()) {
                System.out.println("warning: " + warning);
            }
            events.getLinesList().forEach(System.out::println);
            System.out.println(events.getLinesCount() + " events");
            return 0;
        });
    }
}
