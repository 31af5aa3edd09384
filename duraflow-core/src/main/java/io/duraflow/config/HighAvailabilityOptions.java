package io.duraflow.config;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Options for a highly available job manager: the coordination service that elects the leader
 * and the durable stores ({@code job-result-store.*}) that a new leader reads to decide which jobs
 * to recover and which finished jobs only need their cleanup completed.
 *
 * <p>Paths of the stores when nothing more specific is set:
 *
 * <pre>
 *   high-availability.storage-dir    unset -> {cluster.work-dir}/ha
 *   job-result-store.storage-path    unset -> {storage-dir}/{cluster-id}/job-result-store
 * </pre>
 *
 * <p>The cluster id namespaces everything a cluster stores, so clusters may share a storage
 * directory and a ZooKeeper ensemble; a job is identified globally by (cluster id, job id).
 */
public final class HighAvailabilityOptions {
    /** Letters, digits, '.', '_' and '-', starting with a letter or digit: safe as a directory and znode name. */
    private static final Pattern CLUSTER_ID_PATTERN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    /** How the job manager finds its leader and keeps state for a successor; value of {@code high-availability.type}. */
    public enum HighAvailabilityType {
        /** A single job manager; nothing survives its loss. */
        NONE,
        /** Leader election through ZooKeeper; durable stores under {@code high-availability.storage-dir}. */
        ZOOKEEPER
    }

    public static final ConfigOption<HighAvailabilityType> TYPE = ConfigOption.key("high-availability.type")
            .enumType(HighAvailabilityType.class)
            .defaultValue(HighAvailabilityType.NONE)
            .description("How the job manager survives its own failure: 'none' runs a single job manager,"
                    + " 'zookeeper' elects a leader among several through ZooKeeper.");

    public static final ConfigOption<String> CLUSTER_ID = ConfigOption.key("high-availability.cluster-id")
            .stringType()
            .defaultValue("default")
            .validator(ConfigValidator.of(v -> CLUSTER_ID_PATTERN.matcher(v).matches(),
                    "a cluster id of at most 64 letters, digits, '.', '_' or '-', starting with a letter or digit"))
            .description("Identifies the cluster in the high-availability storage and in ZooKeeper,"
                    + " so that several clusters can share them; give each cluster its own id.");

    public static final ConfigOption<String> STORAGE_DIR = ConfigOption.key("high-availability.storage-dir")
            .stringType()
            .noDefaultValue()
            .validator(ConfigValidator.nonBlank())
            .description("Directory where the job manager keeps state that must outlive it, such as job results"
                    + " and submitted jobs; when unset, the 'ha' directory under cluster.work-dir.");

    public static final ConfigOption<String> ZOOKEEPER_QUORUM = ConfigOption.key("high-availability.zookeeper.quorum")
            .stringType()
            .defaultValue("127.0.0.1:2181")
            .validator(ConfigValidator.nonBlank())
            .description("ZooKeeper servers as comma-separated host:port pairs.");

    public static final ConfigOption<String> ZOOKEEPER_ROOT = ConfigOption.key("high-availability.zookeeper.root")
            .stringType()
            .defaultValue("/duraflow")
            .validator(ConfigValidator.of(v -> v.startsWith("/") && v.length() > 1 && !v.endsWith("/"),
                    "an absolute ZooKeeper path such as '/duraflow'"))
            .description("ZooKeeper node under which all clusters keep their nodes, each under its cluster id.");

    public static final ConfigOption<Duration> ZOOKEEPER_SESSION_TIMEOUT =
            ConfigOption.key("high-availability.zookeeper.session-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .validator(ConfigValidator.positiveDuration())
                    .description("How long ZooKeeper keeps the session of a silent job manager,"
                            + " and so its leadership, before it expires.");

    public static final ConfigOption<Duration> ZOOKEEPER_CONNECTION_TIMEOUT =
            ConfigOption.key("high-availability.zookeeper.connection-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .validator(ConfigValidator.positiveDuration())
                    .description("How long a process waits for a connection to ZooKeeper before it retries;"
                            + " at most the session timeout.");

    public static final ConfigOption<String> JOB_RESULT_STORE_PATH = ConfigOption.key("job-result-store.storage-path")
            .stringType()
            .noDefaultValue()
            .validator(ConfigValidator.nonBlank())
            .description("Directory of the job result store; when unset,"
                    + " 'job-result-store' under the cluster's directory in high-availability.storage-dir.");

    /**
     * Off by default, unlike Flink: with it on, a finished job's result disappears as soon as its
     * cleanup is done, so a client that asks later gets no result, and a job re-submitted with the
     * same id after a failover runs a second time. Bound the store's size with
     * {@link #JOB_RESULT_STORE_CLEAN_RESULT_TTL} instead.
     */
    public static final ConfigOption<Boolean> JOB_RESULT_STORE_DELETE_ON_COMMIT =
            ConfigOption.key("job-result-store.delete-on-commit")
                    .booleanType()
                    .defaultValue(false)
                    .description("Whether a job's result is deleted as soon as its cleanup is done; 'false' keeps it"
                            + " readable and stops a re-submission of the same job id from running the job again.");

    public static final ConfigOption<Duration> JOB_RESULT_STORE_CLEAN_RESULT_TTL =
            ConfigOption.key("job-result-store.clean-result-ttl")
                    .durationType()
                    .noDefaultValue()
                    .validator(ConfigValidator.positiveDuration())
                    .description("How long the result of a job whose cleanup is done is kept, counted from the end"
                            + " of the job; when unset, results are kept until deleted by hand.");

    private HighAvailabilityOptions() {
    }
}
