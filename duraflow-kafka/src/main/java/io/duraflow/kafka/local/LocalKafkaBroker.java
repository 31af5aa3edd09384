package io.duraflow.kafka.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A single-node Kafka broker for demos and tests, in KRaft combined mode (one process is both the
 * broker and the controller of a one-voter quorum), started as a child process:
 * {@code java -cp '<lib>/*' kafka.Kafka server.properties}.
 *
 * <p>Why a process of its own: the broker is 44 MB of jars, Scala and a logging setup of its own;
 * in the test's JVM they would sit on Duraflow's class path next to the engine's own versions. The
 * jars come from {@code duraflow-kafka-broker/target/lib}; {@link #fromSystemProperty()} reads that
 * path from the system property {@value #LIB_PROPERTY}, which the module's tests set. A process of
 * its own can also be killed ({@link #kill()}) the way a real broker dies.
 *
 * <p>The broker listens on two free loopback ports picked once; {@link #restart()} keeps them and
 * the data, so clients reconnect and records survive. Everything the broker writes goes to the
 * directory it is given: {@code broker.log} (its log, INFO), {@code broker.out} (its console),
 * {@code data/}, next to the {@code server.properties} and {@code logback.xml} written for it;
 * {@link #close()} stops the broker and leaves the directory, to be read. A shutdown hook kills
 * the broker when this JVM exits (a JVM killed by SIGKILL runs no hook).
 */
public final class LocalKafkaBroker implements AutoCloseable {

    /** The system property naming the directory of the broker's jars. */
    public static final String LIB_PROPERTY = "kafka.broker.lib";

    /** Small and fast to start: C1 only and the serial collector halve the CPU time a start costs. */
    /** The broker JVM's options unless {@link #jvmOptions} says otherwise: the small, fast-starting ones. */
    public static final List<String> TEST_JVM_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1");

    /** A broker JVM for measuring: both compilers, and the heap and collector Kafka's own start script gives a broker. */
    public static final List<String> SERVER_JVM_OPTIONS = List.of("-Xmx1g", "-Xms1g", "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20");

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path lib;
    private final Path dir;
    private final int port;
    private final int controllerPort;
    private final Map<String, String> overrides;
    private List<String> jvmOptions = TEST_JVM_OPTIONS;
    private Process process;
    private Thread killOnExit;

    private LocalKafkaBroker(Path lib, Path dir, Map<String, String> overrides) throws IOException {
        this.lib = lib;
        this.dir = Files.createDirectories(dir);
        this.overrides = Map.copyOf(overrides);
        port = freePort();
        controllerPort = freePort();
    }

    /**
     * A broker, not started yet, whose jars are in {@code lib}, that works in {@code directory}
     * (created if missing), with {@code properties} replacing or adding to the defaults
     * ({@code broker-server.properties} next to this class); fails at once if {@code lib} holds no jars.
     */
    public static LocalKafkaBroker create(Path lib, Path directory, Map<String, String> properties) {
        Path jars = lib.toAbsolutePath();
        try (Stream<Path> files = Files.isDirectory(jars) ? Files.list(jars) : Stream.empty()) {
            if (files.noneMatch(file -> file.getFileName().toString().endsWith(".jar"))) {
                throw new IllegalStateException("no Kafka broker jars in " + jars
                        + "; run ./mvnw -pl duraflow-kafka-broker package");
            }
            return new LocalKafkaBroker(jars, directory.toAbsolutePath(), properties);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #create}, with the jars in the directory the system property {@value #LIB_PROPERTY} names. */
    public static LocalKafkaBroker fromSystemProperty(Path directory, Map<String, String> properties) {
        String lib = System.getProperty(LIB_PROPERTY);
        if (lib == null || lib.isBlank()) {
            throw new IllegalStateException("system property " + LIB_PROPERTY + " is not set: it names the Kafka"
                    + " broker's jars, duraflow-kafka-broker/target/lib (./mvnw -pl duraflow-kafka-broker package)");
        }
        return create(Path.of(lib), directory, properties);
    }

    /** The broker JVM's options from its next start on ({@link #TEST_JVM_OPTIONS} until then). */
    public synchronized LocalKafkaBroker jvmOptions(List<String> options) {
        jvmOptions = List.copyOf(options);
        return this;
    }

    /** CPU time (user + system) the running broker process used so far; empty if it is not running or unknown. */
    public synchronized Optional<Duration> cpuTime() {
        return isRunning() ? process.info().totalCpuDuration() : Optional.empty();
    }

    /** Formats the data directory if it is new, launches the broker and waits until it answers. */
    public synchronized void start() {
        if (isRunning()) {
            throw new IllegalStateException("the Kafka broker at " + bootstrapServers() + " is running already");
        }
        try {
            checkFree(port);
            checkFree(controllerPort);
            String properties = resource("broker-server.properties") + "\n# the properties given to LocalKafkaBroker\n";
            for (Map.Entry<String, String> override : overrides.entrySet()) {
                properties += override.getKey() + "=" + override.getValue() + "\n";
            }
            Files.writeString(dir.resolve("server.properties"), properties);
            Files.writeString(dir.resolve("logback.xml"), resource("broker-logback.xml"));
            if (!Files.exists(dir.resolve("data").resolve("meta.properties"))) {
                format();
            }
            process = launch("kafka.Kafka", "server.properties");
            killOnExit = new Thread(process::destroyForcibly, "kill-kafka-broker");
            Runtime.getRuntime().addShutdownHook(killOnExit);
            awaitReady();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the Kafka broker in " + dir + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
            throw new IllegalStateException("interrupted starting the Kafka broker", e);
        } catch (RuntimeException e) {
            kill();
            throw e;
        }
    }

    /** "127.0.0.1:port", for the clients' {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** The broker's directory: its configuration, log, console and data. */
    public Path directory() {
        return dir;
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Kills the broker with SIGKILL, as a crash would, and waits until it is gone. */
    public synchronized void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitForExit(Duration.ofSeconds(30));
        }
    }

    /** Stops the broker with SIGTERM (a clean shutdown), and SIGKILL if it has not exited after 30 s. */
    public synchronized void stop() {
        if (process != null) {
            process.destroy();
            if (!waitForExit(Duration.ofSeconds(30))) {
                kill();
            }
        }
    }

    /** Stops the broker if it runs, and starts it again on the same ports with the same data. */
    public synchronized void restart() {
        stop();
        start();
    }

    /** Creates a topic with one replica per partition and waits until every partition has a leader. */
    public void createTopic(String name, int partitions) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!hasLeaders(admin, name, partitions) || !servesEveryPartition(admin, name, partitions)) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("no leader for every partition after 30 s");
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        } catch (Exception e) {
            throw failure("cannot create topic " + name, e);
        }
    }

    public void deleteTopic(String name) {
        try (Admin admin = admin()) {
            admin.deleteTopics(List.of(name)).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw failure("cannot delete topic " + name, e);
        }
    }

    /** Stops the broker; leaves its directory. */
    @Override
    public void close() {
        stop();
    }

    private void format() throws IOException, InterruptedException {
        Process format = launch("kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(),
                "-c", "server.properties", "--standalone");
        if (!format.waitFor(60, TimeUnit.SECONDS)) {
            format.destroyForcibly();
            throw new IllegalStateException("formatting the Kafka broker's storage took over 60 s" + tails());
        }
        if (format.exitValue() != 0) {
            throw new IllegalStateException("formatting the Kafka broker's storage failed with exit code "
                    + format.exitValue() + tails());
        }
    }

    private Process launch(String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-Dlogback.configurationFile=" + dir.resolve("logback.xml"),
                "-cp", lib.resolve("*").toString(), mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.out").toFile())).start();
    }

    /**
     * Until the broker describes the cluster. Its port accepts connections once it is unfenced: no
     * client is made before, whose failed connections would fill the caller's log with warnings.
     */
    private void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Admin admin = null;
        try {
            while (true) {
                if (accepts(port)) {
                    admin = admin != null ? admin : admin();
                    try {
                        if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                            return;
                        }
                    } catch (ExecutionException | TimeoutException e) {
                        // not answering yet
                    }
                }
                if (process.waitFor(200, TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("the Kafka broker exited with code " + process.exitValue()
                            + " while starting" + tails());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the Kafka broker did not answer within "
                            + START_TIMEOUT.toSeconds() + " s" + tails());
                }
            }
        } finally {
            if (admin != null) {
                admin.close(Duration.ZERO); // without waiting for calls a dead broker never answers
            }
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000,
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200));
    }

    private static boolean hasLeaders(Admin admin, String topic, int partitions) throws InterruptedException {
        try {
            TopicDescription description =
                    admin.describeTopics(Set.of(topic)).allTopicNames().get(5, TimeUnit.SECONDS).get(topic);
            return description.partitions().size() == partitions
                    && description.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /**
     * Whether the leader answers for every partition: the metadata names a leader before that
     * broker has loaded the partition, and a producer's first batch sent then is refused
     * (NOT_LEADER_OR_FOLLOWER); its idempotent producer then refused every retry with
     * OUT_OF_ORDER_SEQUENCE_NUMBER until the batch expired, two minutes later.
     */
    private static boolean servesEveryPartition(Admin admin, String topic, int partitions)
            throws InterruptedException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int partition = 0; partition < partitions; partition++) {
            latest.put(new TopicPartition(topic, partition), OffsetSpec.latest());
        }
        try {
            admin.listOffsets(latest).all().get(5, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    private boolean waitForExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // this JVM is exiting: the hook runs, harmlessly
        }
        return true;
    }

    private RuntimeException failure(String message, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
        return new IllegalStateException(message + " on the Kafka broker at " + bootstrapServers() + ": " + cause, cause);
    }

    private String resource(String name) throws IOException {
        try (InputStream in = LocalKafkaBroker.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@DIR@", dir.toString())
                    .replace("@CONTROLLER_PORT@", Integer.toString(controllerPort))
                    .replace("@PORT@", Integer.toString(port));
        }
    }

    /** The last lines of the broker's log and console, stack frames left out, after a line break. */
    private String tails() {
        return tail(dir.resolve("broker.log"), 20) + tail(dir.resolve("broker.out"), 10);
    }

    private static String tail(Path file, int count) {
        try {
            List<String> lines = !Files.exists(file) ? List.of() : Files.readAllLines(file).stream()
                    .filter(line -> !line.startsWith("\tat ") && !line.startsWith("\t... ")).toList();
            return lines.isEmpty() ? "" : "\n--- last lines of " + file + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "\n--- cannot read " + file + ": " + e;
        }
    }

    private static void checkFree(int port) throws IOException {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            // free
        } catch (BindException e) {
            throw new IllegalStateException("port 127.0.0.1:" + port + " is in use: the Kafka broker cannot listen on it");
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
