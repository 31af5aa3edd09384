package io.duraflow.cli.demo;

import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.Duraflow;
import io.duraflow.cli.JobOptions;
import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.RunCommand;
import io.duraflow.plan.JobGraph;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "demo", description = "Starts a local cluster (1 JobManager, 2 TaskManagers), runs a job on it,"
        + " prints the result and stops the cluster. 'demo batch-failover' runs a batch job on a high-availability"
        + " cluster, kills the leader JobManager half way and reports what it cost. 'demo streaming-failover' runs a"
        + " checkpointed streaming job with an exactly-once file sink on one, kills a TaskManager and later the"
        + " leader JobManager, reports checkpoints, recovery times and replayed records, and checks the output."
        + " 'demo checkpoint-rejection' runs a source that declines checkpoints while a table chunk is open,"
        + " kills a TaskManager, reports declined and completed checkpoints, and checks the output."
        + " 'demo kafka-exactly-once' starts a Kafka broker next to a high-availability cluster, counts keys from"
        + " topic to topic with the exactly-once Kafka sink while records are produced, kills a TaskManager and later"
        + " the leader JobManager, and checks the output as a read_committed consumer sees it.")
public final class DemoCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    Duraflow root;

    @CommandLine.Mixin
    JobOptions options = new JobOptions();

    @Option(names = "--taskmanagers", defaultValue = "2", description = "TaskManagers to start (default: 2)")
    int taskManagers;

    @Override
    public Integer call() throws Exception {
        if (options.job.equals("batch-failover")) {
            return new BatchFailoverDemo(directory(), root.overrides, options.params, System.out).run();
        }
        if (options.job.equals("streaming-failover")) {
            return new StreamingFailoverDemo(directory(), root.overrides, options.params, options.parallelism,
                    System.out).run();
        }
        if (options.job.equals("kafka-exactly-once")) {
            return new KafkaExactlyOnceDemo(directory(), root.overrides, options.params, options.parallelism,
                    System.out).run();
        }
        if (options.job.equals("checkpoint-rejection")) {
            return new CheckpointRejectionDemo(directory(), root.overrides, options.params, options.parallelism,
                    true, System.out).run();
        }
        JobGraph graph = options.plan(root.configuration());
        LocalCluster cluster = new LocalCluster(directory(), root.overrides, System.out::println);
        Thread cleanup = new Thread(() -> {
            try {
                cluster.stop();
            } catch (Exception ignored) {
                // exiting anyway
            }
        });
        Runtime.getRuntime().addShutdownHook(cleanup);
        long start = System.nanoTime();
        try {
            String address = cluster.start(taskManagers, 1, 0, Duration.ofSeconds(60));
            System.out.printf("Cluster up in %.2f s%n", (System.nanoTime() - start) / 1e9);
            try (ClusterClient client = new ClusterClient(address)) {
                return RunCommand.runJob(client, options, root.overrides, graph, false);
            }
        } finally {
            int stopped = cluster.stop();
            Runtime.getRuntime().removeShutdownHook(cleanup);
            System.out.printf("Stopped %d processes; total %.2f s (logs in %s)%n", stopped,
                    (System.nanoTime() - start) / 1e9, cluster.workDir().resolve("log"));
        }
    }

    /** The cluster's work directory: --work-dir, or a new temporary one. */
    private Path directory() throws java.io.IOException {
        return root.workDir != null ? root.workDir : Files.createTempDirectory("duraflow-demo-");
    }
}
