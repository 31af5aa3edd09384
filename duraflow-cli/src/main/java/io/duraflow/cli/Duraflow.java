package io.duraflow.cli;

import io.duraflow.cli.demo.DemoCommand;
import io.duraflow.config.ConfigLoader;
import io.duraflow.config.Configuration;
import io.duraflow.config.JobManagerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code duraflow} command line. */
@Command(name = "duraflow", mixinStandardHelpOptions = true, version = "duraflow 0.1.0",
        description = "A dataflow engine whose control plane survives failures.",
        subcommands = {JobManagerCommand.class, TaskManagerCommand.class, LocalCommand.class,
                RunCommand.class, ListCommand.class, StatusCommand.class, CancelCommand.class,
                DemoCommand.class, ResultCommand.class, CheckpointsCommand.class, SavepointCommand.class, EventsCommand.class, ZooKeeperCommand.class, ConfigCommand.class,
                CommandLine.HelpCommand.class})
public final class Duraflow {
    static final int EXIT_JOB_FAILED = 1;

    @Option(names = "--config", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "YAML configuration file (default: conf/duraflow.yaml if it exists)")
    Path configFile;

    @Option(names = "-D", scope = ScopeType.INHERIT, paramLabel = "key=value",
            description = "Overrides a configuration option, e.g. -D heartbeat.timeout=5s")
    public Map<String, String> overrides = new LinkedHashMap<>();

    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print stack traces with errors")
    boolean verbose;

    @Option(names = "--work-dir", scope = ScopeType.INHERIT, paramLabel = "DIR",
            description = "Local cluster directory (pids, logs, state); default: cluster.work-dir")
    public Path workDir;

    @Option(names = "--jobmanager", scope = ScopeType.INHERIT, paramLabel = "HOST:PORT",
            description = "JobManager to talk to (default: the local cluster's, else jobmanager.rpc.address/port)")
    String jobManager;

    public static void main(String[] args) {
        System.exit(commandLine(true).execute(args));
    }

    /** Runs the command line and returns the exit code (tests call this in-process). */
    static int execute(String... args) {
        return commandLine(false).execute(args);
    }

    /** The {@code duraflow} command line; see {@link CommandLineConventions}. */
    static CommandLine commandLine(boolean configureLogging) {
        Duraflow root = new Duraflow();
        return CommandLineConventions.apply(new CommandLine(root), configureLogging, () -> root.verbose);
    }

    /** A command that runs a server process; it logs at INFO to stdout (its log file under 'local start'). */
    interface ServerCommand {
    }

    static String oneLine(Throwable t) {
        return io.duraflow.rpc.Rpc.describe(t);
    }

    /**
     * The configuration file (or conf/duraflow.yaml), then the settings a local cluster in the
     * work directory left for its clients (cluster.conf: how to find its leader), then -D.
     */
    public Configuration configuration() throws java.io.IOException {
        Path file = configFile;
        if (file == null) {
            Path defaultFile = Path.of("conf", "duraflow.yaml");
            file = Files.exists(defaultFile) ? defaultFile : null;
        }
        Map<String, String> merged = new LinkedHashMap<>();
        Path clusterFile = (workDir != null ? workDir : Path.of(".duraflow")).resolve(LocalCluster.CLIENT_CONFIG);
        if (Files.exists(clusterFile)) {
            merged.putAll(LocalCluster.readClientConfig(clusterFile));
        }
        merged.putAll(overrides);
        return ConfigLoader.load(file, merged);
    }

    /** How long a client command follows a failover (looks for the leader, sends again) before it gives up. */
    static final Duration CLIENT_FAILOVER_TIMEOUT = Duration.ofSeconds(60);

    /** A client of the leading JobManager; follows failovers for up to {@link #CLIENT_FAILOVER_TIMEOUT}. */
    ClusterClient client(Configuration config) throws Exception {
        return new ClusterClient(config, jobManagerAddress(config), CLIENT_FAILOVER_TIMEOUT);
    }

    /** What a command does with a client of the leading JobManager; returns the exit code. */
    interface ClientAction {
        int run(ClusterClient client, Configuration config) throws Exception;
    }

    /** Loads the {@link #configuration()}, runs the action with a {@link #client} and closes the client. */
    int withClient(ClientAction action) throws Exception {
        Configuration config = configuration();
        try (ClusterClient client = client(config)) {
            return action.run(client, config);
        }
    }

    /** The {@code --show} option of the commands that print collected results. */
    static final class ShowOption {
        @Option(names = "--show", defaultValue = "20", paramLabel = "N",
                description = "Records of each collected result to print (default: ${DEFAULT-VALUE})")
        int records;
    }

    Path workDirectory(Configuration config) {
        return workDir != null ? workDir : Path.of(config.get(io.duraflow.config.ClusterOptions.WORK_DIR));
    }

    String jobManagerAddress(Configuration config) throws Exception {
        if (jobManager != null) {
            return jobManager;
        }
        Path addressFile = workDirectory(config).resolve(LocalCluster.ADDRESS_FILE);
        if (Files.exists(addressFile)) {
            return Files.readString(addressFile).trim();
        }
        return config.get(JobManagerOptions.RPC_ADDRESS) + ":" + config.get(JobManagerOptions.RPC_PORT);
    }

    static void awaitShutdown(AutoCloseable process) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                process.close();
            } catch (Exception ignored) {
                // exiting anyway
            }
            stopped.countDown();
        }, "shutdown"));
        stopped.await();
    }
}
