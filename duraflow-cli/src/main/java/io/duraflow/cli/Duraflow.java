package io.duraflow.cli;

import io.duraflow.config.ConfigLoader;
import io.duraflow.config.ConfigRegistry;
import io.duraflow.config.Configuration;
import io.duraflow.config.JobManagerOptions;
import io.duraflow.jobmanager.JobManagerRunner;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.rpc.proto.VertexStatus;
import io.duraflow.taskmanager.TaskManagerRunner;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;

/** The {@code duraflow} command line. */
@Command(name = "duraflow", mixinStandardHelpOptions = true, version = "duraflow 0.1.0",
        description = "A dataflow engine whose control plane survives failures.",
        subcommands = {Duraflow.JobManagerCommand.class, Duraflow.TaskManagerCommand.class, Duraflow.Local.class,
                Duraflow.Run.class, Duraflow.ListJobs.class, Duraflow.StatusCommand.class, Duraflow.Cancel.class,
                Duraflow.Demo.class, ResultCommand.class, CheckpointsCommand.class, SavepointCommand.class, Duraflow.Events.class, ZooKeeperCommand.class, Duraflow.ConfigCommand.class,
                CommandLine.HelpCommand.class})
public final class Duraflow {
    static final int EXIT_JOB_FAILED = 1;

    @Option(names = "--config", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "YAML configuration file (default: conf/duraflow.yaml if it exists)")
    Path configFile;

    @Option(names = "-D", scope = ScopeType.INHERIT, paramLabel = "key=value",
            description = "Overrides a configuration option, e.g. -D heartbeat.timeout=5s")
    Map<String, String> overrides = new LinkedHashMap<>();

    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print stack traces with errors")
    boolean verbose;

    @Option(names = "--work-dir", scope = ScopeType.INHERIT, paramLabel = "DIR",
            description = "Local cluster directory (pids, logs, state); default: cluster.work-dir")
    Path workDir;

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
    Configuration configuration() throws java.io.IOException {
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

    // ------------------------------------------------------------------ processes

    @Command(name = "jobmanager", description = "Runs a JobManager in the foreground.")
    static final class JobManagerCommand implements Callable<Integer>, ServerCommand {
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
            awaitShutdown(runner);
            return 0;
        }
    }

    @Command(name = "taskmanager", description = "Runs a TaskManager in the foreground.")
    static final class TaskManagerCommand implements Callable<Integer>, ServerCommand {
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
            awaitShutdown(runner);
            return 0;
        }
    }

    @Command(name = "local", description = "Manages a cluster of local processes.",
            subcommands = {Local.Start.class, Local.Stop.class, Local.Status.class})
    static final class Local {
        @CommandLine.ParentCommand
        Duraflow root;

        LocalCluster cluster(Configuration config, PrintStream out) {
            return new LocalCluster(root.workDirectory(config), root.overrides, out::println);
        }

        @Command(name = "start", description = "Starts a JobManager and TaskManagers in the background.")
        static final class Start implements Callable<Integer> {
            @CommandLine.ParentCommand
            Local local;

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

        @Command(name = "stop", description = "Stops the local cluster's processes.")
        static final class Stop implements Callable<Integer> {
            @CommandLine.ParentCommand
            Local local;

            @Override
            public Integer call() throws Exception {
                Configuration config = local.root.configuration();
                int stopped = local.cluster(config, System.out).stop();
                System.out.println(stopped == 0 ? "No local cluster was running in " + local.root.workDirectory(config)
                        : "Stopped " + stopped + " processes");
                return 0;
            }
        }

        @Command(name = "status", description = "Shows the local cluster's processes and TaskManagers.")
        static final class Status implements Callable<Integer> {
            @CommandLine.ParentCommand
            Local local;

            @Override
            public Integer call() throws Exception {
                Configuration config = local.root.configuration();
                LocalCluster cluster = local.cluster(config, System.out);
                Map<String, Long> processes = cluster.processes();
                if (processes.isEmpty()) {
                    System.out.println("No local cluster in " + cluster.workDir());
                    return 1;
                }
                List<Long> alive = cluster.alivePids();
                for (Map.Entry<String, Long> p : processes.entrySet()) {
                    System.out.printf("%-16s pid %-8d %-8s log %s%n", p.getKey(), p.getValue(),
                            alive.contains(p.getValue()) ? "running" : "DEAD", cluster.log(p.getKey()));
                }
                if (!alive.isEmpty()) {
                    try (ClusterClient client = local.root.client(config)) {
                        ClusterOverview overview = client.overview();
                        System.out.println("Leading JobManager " + client.address() + ": "
                                + overview.getTaskManagersCount() + " TaskManagers, " + overview.getRunningJobs()
                                + " running jobs");
                        for (TaskManagerInfo tm : overview.getTaskManagersList()) {
                            System.out.printf("  %s at %s: %d/%d slots free, heap %d MiB, network memory %d of %d"
                                            + " KiB in use%n", tm.getTmId(), tm.getAddress(), tm.getFreeSlots(),
                                    tm.getSlots(), tm.getHeapUsedBytes() >> 20, tm.getNetworkBytesInUse() >> 10,
                                    tm.getNetworkBytesTotal() >> 10);
                        }
                    }
                }
                return alive.size() == processes.size() ? 0 : 1;
            }
        }
    }

    // ------------------------------------------------------------------ jobs

    /** Options shared by run and demo. */
    static final class JobOptions {
        @Parameters(index = "0", paramLabel = "JOB", description = "Job class, or an example: wordcount, tpch-q1, join")
        String job;

        @Option(names = "--param", paramLabel = "key=value", description = "A job parameter (repeatable)")
        Map<String, String> params = new LinkedHashMap<>();

        @Option(names = "--parallelism", paramLabel = "N", description = "Parallelism of sources, upper bound of"
                + " the rest (default: parallelism.default)")
        int parallelism;

        @Option(names = "--job-id", paramLabel = "ID", description = "Job id to use (default: a random one)")
        String jobId;

        /** What the job restores ({@code run --from-savepoint}); null: empty state. */
        io.duraflow.rpc.proto.RestoreSettingsData restore;

        @CommandLine.Mixin
        ShowOption show = new ShowOption();

        /**
         * The submission; {@code config} (the command's {@code -D} overrides) becomes the job's own
         * configuration, which the JobManager merges over its cluster's, so that e.g. {@code -D
         * execution.checkpointing.interval=1s} applies to this job.
         */
        SubmitJobRequest request(Map<String, String> config) {
            if (parallelism < 0) {
                throw new CliException("--parallelism must be at least 1");
            }
            // The id is chosen here, so a submission retried during a failover cannot start the job twice.
            String id = jobId != null ? jobId : java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 16);
            SubmitJobRequest.Builder request = SubmitJobRequest.newBuilder().setJobId(id)
                    .setJobClass(JobAliases.resolve(job)).putAllParams(params).putAllConfig(config)
                    .setParallelism(parallelism);
            if (restore != null) {
                request.setRestore(restore);
            }
            return request.build();
        }

        /** Builds the plan here first, so a bad job or parameter fails before anything is sent. */
        JobGraph plan(Configuration config) {
            int p = parallelism > 0 ? parallelism : config.get(io.duraflow.config.ExecutionOptions.PARALLELISM_DEFAULT);
            try {
                return JobPlans.build(JobAliases.resolve(job), params, p);
            } catch (JobPlans.UnknownJobException e) {
                throw new CliException(e.getMessage() + " (examples: " + JobAliases.list() + ")");
            }
        }
    }

    /** Submits the job whose plan the caller built with {@link JobOptions#plan}, and follows it unless detached. */
    static int runJob(ClusterClient client, JobOptions options, Map<String, String> config, JobGraph graph,
            boolean detached) throws InterruptedException {
        SubmitJobRequest request = options.request(config);
        SubmitJobResponse submitted;
        try {
            submitted = client.submit(request);
        } catch (CliException e) {
            if (!(e.getCause() instanceof io.grpc.StatusRuntimeException status)
                    || status.getStatus().getCode() != io.grpc.Status.Code.ALREADY_EXISTS
                    || !String.valueOf(e.getMessage()).contains("already ended")) {
                throw e;
            }
            // The job ran before: say so, show that result, and exit as that run ended.
            System.out.println("duraflow: " + e.getMessage());
            JobResult previous = client.result(request.getJobId());
            new JobRunner(client, System.out).printResult(previous, graph, options.show.records);
            return previous.getStatus().getState() == JobState.JOB_FINISHED ? 0 : EXIT_JOB_FAILED;
        }
        System.out.println("Submitted job " + submitted.getJobId() + " (" + graph.jobName() + ", plan "
                + submitted.getFingerprint() + ") to " + client.address());
        if (detached) {
            System.out.println("Follow it with 'duraflow status " + submitted.getJobId() + "'");
            return 0;
        }
        JobRunner runner = new JobRunner(client, System.out);
        runner.follow(submitted.getJobId());
        JobResult result = client.result(submitted.getJobId());
        runner.printResult(result, graph, options.show.records);
        return result.getStatus().getState() == JobState.JOB_FINISHED ? 0 : EXIT_JOB_FAILED;
    }

    @Command(name = "run", description = "Submits a job and follows it to the end (exit code 0 if it finished).")
    static final class Run implements Callable<Integer> {
        @CommandLine.ParentCommand
        Duraflow root;

        @CommandLine.Mixin
        JobOptions options = new JobOptions();

        @Option(names = "--detached", description = "Return after submission")
        boolean detached;

        @Option(names = "--from-savepoint", paramLabel = "PATH", description = "Start from a savepoint or a retained"
                + " checkpoint (its directory or _metadata), with another parallelism if you like")
        String fromSavepoint;

        @Option(names = "--claim", description = "With --from-savepoint: the job takes over the restored files and"
                + " deletes them once its first checkpoint subsumes them")
        boolean claim;

        @Option(names = "--no-claim", description = "With --from-savepoint (the default): the job never deletes or"
                + " depends on the restored files; its first checkpoint is full")
        boolean noClaim;

        @Option(names = "--allow-non-restored-state", description = "With --from-savepoint: drop (and log) the"
                + " state of operators the job no longer has instead of refusing it")
        boolean allowNonRestoredState;

        @Override
        public Integer call() throws Exception {
            options.restore = SavepointCommand.restore(fromSavepoint, claim, noClaim, allowNonRestoredState);
            return root.withClient((client, config) -> runJob(client, options, root.overrides,
                    options.plan(config), detached));
        }
    }

    @Command(name = "demo", description = "Starts a local cluster (1 JobManager, 2 TaskManagers), runs a job on it,"
            + " prints the result and stops the cluster. 'demo batch-failover' runs a batch job on a high-availability"
            + " cluster, kills the leader JobManager half way and reports what it cost. 'demo streaming-failover' runs a"
            + " checkpointed streaming job with an exactly-once file sink on one, kills a TaskManager and later the"
            + " leader JobManager, reports checkpoints, recovery times and replayed records, and checks the output."
            + " 'demo checkpoint-rejection' runs a source that declines checkpoints while a table chunk is open,"
            + " kills a TaskManager, reports declined and completed checkpoints, and checks the output.")
    static final class Demo implements Callable<Integer> {
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
                    return runJob(client, options, root.overrides, graph, false);
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

    @Command(name = "list", description = "Lists the jobs the JobManager knows.")
    static final class ListJobs implements Callable<Integer> {
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

    @Command(name = "status", description = "Shows a job's state and its vertices.")
    static final class StatusCommand implements Callable<Integer> {
        @CommandLine.ParentCommand
        Duraflow root;

        @Parameters(index = "0", paramLabel = "JOB_ID")
        String jobId;

        @Override
        public Integer call() throws Exception {
            return root.withClient((client, config) -> {
                JobStatus status = client.status(jobId);
                System.out.println("Job " + status.getJobId() + " (" + status.getJobName() + "): "
                        + JobRunner.stateName(status.getState()) + ", " + status.getRestarts() + " restarts"
                        + (status.getRestoredTasks() > 0 ? ", " + status.getRestoredTasks()
                                + " finished tasks kept through a JobManager failover" : ""));
                if (!status.getFailure().isEmpty()) {
                    System.out.println("  cause: " + status.getFailure());
                }
                if (status.hasEventLog()) {
                    var log = status.getEventLog();
                    System.out.println(log.getStoppedCause().isEmpty()
                            ? String.format("  job event log: %,d events recorded", log.getWrittenEvents())
                            : String.format("  job event log: STOPPED after %,d events (%s), %,d events not recorded;"
                                    + " if the JobManager fails, the work since then runs again",
                                    log.getWrittenEvents(), log.getStoppedCause(), log.getDroppedEvents()));
                }
                for (VertexStatus v : status.getVerticesList()) {
                    System.out.printf("  %-50s %3d/%-3s finished, %d running, %,d records in, %,d out%n", v.getName(),
                            v.getFinished(), v.getParallelism() == 0 ? "?" : Integer.toString(v.getParallelism()),
                            v.getRunning(), v.getRecordsIn(), v.getRecordsOut());
                    if (v.hasRates()) {
                        System.out.println(JobRunner.ratesLine(v.getRates()));
                    }
                    if (v.getTasksList().stream().anyMatch(task -> task.getAttempt() > 0)) {
                        StringBuilder attempts = new StringBuilder("    attempt per subtask:");
                        v.getTasksList().forEach(task -> attempts.append(" #").append(task.getAttempt()));
                        System.out.println(attempts);
                    }
                }
                return 0;
            });
        }
    }

    @Command(name = "events", description = "Prints a job's event log (what batch job recovery replays).")
    static final class Events implements Callable<Integer> {
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

    @Command(name = "cancel", description = "Cancels a running job; with --savepoint, only once a savepoint of it"
            + " completed (if the savepoint fails, the job keeps running and the exit code is 1).")
    static final class Cancel implements Callable<Integer> {
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

    @Command(name = "config", description = "Lists every configuration option with its default.")
    static final class ConfigCommand implements Callable<Integer> {
        @Override
        public Integer call() {
            System.out.println(ConfigRegistry.global().renderTable());
            return 0;
        }
    }
}
