package io.duraflow.jobmanager;

import io.duraflow.jobmanager.dispatcher.Dispatcher;
import io.duraflow.jobmanager.dispatcher.JobDirectories;
import io.duraflow.jobmanager.dispatcher.StoredJobRecovery;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.jobmanager.resourcemanager.TaskManagerProbes;
import io.duraflow.mailbox.ThreadMailbox;

import io.duraflow.checkpoint.CheckpointServices;
import io.duraflow.config.ClusterOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.JobManagerOptions;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.ha.LeaderContender;
import io.duraflow.ha.LeaderElection;
import io.duraflow.jobstore.CleanupRetryPolicy;
import io.duraflow.metrics.MetricsEndpoint;
import io.duraflow.rpc.RpcServers;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.mailbox.Mailbox;
import io.grpc.Server;
import io.grpc.Status;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JobManager process: its gRPC server, and, while it leads, a resource manager and a
 * dispatcher for that leadership session. A standby answers requests with UNAVAILABLE so that
 * clients and TaskManagers look for the leader.
 */
public final class JobManagerRunner implements AutoCloseable, LeaderContender {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerRunner.class);

    private final Configuration config;
    private final ThreadMailbox mainThread = new ThreadMailbox("jobmanager-main");
    private final ExecutorService io = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "jobmanager-io");
        t.setDaemon(true);
        return t;
    });
    /** Runs the jobs' own code (plan building); a job that hangs holds one thread, never the main thread. */
    private final ExecutorService userCode = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "jobmanager-user-code");
        t.setDaemon(true);
        return t;
    });
    /** Take-overs given up in a row; the next rejoin waits longer. Main thread only. */
    private int failedLeaderships;
    private final HighAvailabilityServices ha;
    private final LeaderElection election;
    private final long heartbeatIntervalMs;
    private final long heartbeatTimeoutMs;
    private final Server server;
    private final JobManagerRest rest;
    private final String address;
    private final String participantId = "jm-" + UUID.randomUUID().toString().substring(0, 8);
    /** The current leadership, or null while standing by. Main thread only. */
    private Leadership leadership;
    /**
     * The dispatcher of the current leadership once it is ready, for queries off the main thread
     * ({@link #publishedStatus}); else null. Valid only while {@link #leadershipChanges} is still
     * the count it was granted at: a revocation counts at once, on the election's thread, before
     * the main thread gets to stand by.
     */
    private volatile ReadyDispatcher readyDispatcher;
    private final AtomicLong leadershipChanges = new AtomicLong();
    /** Whether the election granted leadership and did not revoke it since (any thread). */
    private volatile boolean elected;
    /** Set once {@link #close} began: a closing JobManager does not preload for a take-over. */
    private volatile boolean closing;

    private record ReadyDispatcher(Dispatcher dispatcher, long grantedAt) {}
    /** When clean results older than their TTL were last looked for. Main thread only. */
    private long lastExpiryMs;
    /** The Prometheus endpoint, or null (metrics.prometheus.port off). */
    private final MetricsEndpoint metrics;
    /** Leaderships granted since this JobManager started, and when the current one began (metrics). Main thread only. */
    private long leaderships;
    private long leaderSinceMs;

    /** What exists while this JobManager leads. */
    private static final class Leadership {
        final String sessionId;
        final ResourceManager resourceManager;
        final Dispatcher dispatcher;
        final Mailbox.Cancellable heartbeatCheck;
        /** False until the stored jobs are recovered: until then every request is turned away. */
        boolean ready;

        Leadership(String sessionId, ResourceManager resourceManager, Dispatcher dispatcher,
                Mailbox.Cancellable heartbeatCheck) {
            this.sessionId = sessionId;
            this.resourceManager = resourceManager;
            this.dispatcher = dispatcher;
            this.heartbeatCheck = heartbeatCheck;
        }
    }

    private JobManagerRunner(Configuration config) throws Exception {
        this.config = config;
        this.heartbeatIntervalMs = config.get(ClusterOptions.HEARTBEAT_INTERVAL).toMillis();
        this.heartbeatTimeoutMs = config.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis();
        String host = config.get(JobManagerOptions.RPC_ADDRESS);
        JobManagerServices.ClientFacing clientFacing = new JobManagerServices.ClientFacing(this);
        try {
            this.server = RpcServers.start(host, config.get(JobManagerOptions.RPC_PORT), JobManagerOptions.RPC_PORT.key(),
                    new JobManagerServices.TaskManagerFacing(this), clientFacing);
        } catch (RuntimeException e) {
            mainThread.close();
            io.shutdownNow();
            throw e;
        }
        try {
            this.rest = JobManagerRest.start(clientFacing, config);
        } catch (RuntimeException e) {
            server.shutdownNow();
            mainThread.close();
            io.shutdownNow();
            throw e;
        }
        this.address = host + ":" + server.getPort();
        mainThread.onUncaughtException(error -> {
            Leadership current = leadership;
            if (current != null) {
                LOG.error("An error escaped the main thread; giving up leadership (session {}) so that the next"
                        + " leader starts from the durable state", current.sessionId);
                giveUpLeadership(current.sessionId);
            }
        });
        this.ha = HighAvailabilityServices.create(config);
        this.election = ha.createLeaderElection(participantId);
        rest.followLeader(ha);
        this.metrics = startMetrics(config);
        LOG.info("JobManager {} listening on {} (high availability: {})", participantId, address,
                ha.isZooKeeper() ? "zookeeper" : "none");
        election.start(this);
        if (ha.isZooKeeper()) {
            // Without high availability it leads at once and nothing takes over from it: the
            // warm-up would only compete with its first job for the cores.
            StandbyWarmUp.start(address, () -> !elected && !closing, go -> StoredJobRecovery.rehearseReads(
                    ha.jobResultStore(), ha.jobGraphStore(), new JobDirectories(ha.fileSystem(), ha.jobsDirectory()),
                    go));
        }
    }

    /** The Prometheus endpoint, or null when it is off; on failure everything started so far is closed. */
    private MetricsEndpoint startMetrics(Configuration config) {
        try {
            return MetricsEndpoint.start(config, "jobmanager", new JobManagerMetrics(mainThread, this::metricsSnapshot,
                    ha.jobResultStore(), System::currentTimeMillis));
        } catch (RuntimeException e) {
            server.shutdownNow();
            mainThread.close();
            io.shutdownNow();
            userCode.shutdownNow();
            ha.close();
            throw e;
        }
    }

    /** Main thread: what a metrics scrape reads (see {@link JobManagerMetrics}). */
    private JobManagerMetrics.Snapshot metricsSnapshot() {
        Leadership current = leadership;
        return JobManagerMetrics.snapshot(System.currentTimeMillis(), current == null ? null : current.dispatcher,
                current == null ? null : current.resourceManager, leaderships, leaderSinceMs);
    }

    /** The Prometheus endpoint's port, or -1 when it is off. */
    public int metricsPort() {
        return metrics == null ? -1 : metrics.port();
    }

    public static JobManagerRunner start(Configuration config) throws Exception {
        return new JobManagerRunner(config);
    }

    @Override
    public void grantLeadership(String sessionId) {
        elected = true;
        long electedAtMs = System.currentTimeMillis();
        long grantedAt = leadershipChanges.incrementAndGet();
        mainThread.execute(() -> becomeLeader(sessionId, grantedAt, electedAtMs));
    }

    @Override
    public void revokeLeadership() {
        elected = false;
        leadershipChanges.incrementAndGet();
        mainThread.execute(this::standBy);
    }

    private void becomeLeader(String sessionId, long grantedAt, long electedAtMs) {
        if (leadership != null) {
            standBy();
        }
        ResourceManager resourceManager = new ResourceManager(sessionId, mainThread, System::currentTimeMillis,
                heartbeatTimeoutMs, config.get(ClusterOptions.RPC_ASK_TIMEOUT).toMillis(),
                TaskManagerProbes.Settings.fromConfiguration(config));
        Dispatcher.Services services = new Dispatcher.Services(ha.jobResultStore(), ha.jobGraphStore(),
                new JobDirectories(ha.fileSystem(), ha.jobsDirectory()), CleanupRetryPolicy.fromConfiguration(config),
                io, userCode, () -> giveUpLeadership(sessionId), election::stillLeads,
                jobId -> CheckpointServices.idCounter(ha.zooKeeperClient(), jobId));
        Dispatcher dispatcher = new Dispatcher(config, sessionId, resourceManager, mainThread,
                System::currentTimeMillis, services);
        Mailbox.Cancellable heartbeatCheck = mainThread.scheduleAtFixedRate(() -> {
            resourceManager.checkHeartbeats();
            long now = System.currentTimeMillis();
            if (now - lastExpiryMs > 60_000) {
                lastExpiryMs = now;
                dispatcher.expireCleanResults();
            }
        }, heartbeatIntervalMs);
        Leadership current = new Leadership(sessionId, resourceManager, dispatcher, heartbeatCheck);
        leadership = current;
        rest.takingOver();
        leaderships++;
        leaderSinceMs = electedAtMs;
        LOG.info("JobManager {} leads (session {})", participantId, sessionId);
        // Published only once the stored jobs are back, so nobody asks this leader about a job
        // it does not know yet.
        dispatcher.recover(electedAtMs).thenRunAsync(() -> {
            current.ready = true;
            if (leadership == current) {
                readyDispatcher = new ReadyDispatcher(current.dispatcher, grantedAt);
                rest.leading();
            }
        }, mainThread).whenCompleteAsync((ignored, error) -> {
            if (error != null) {
                // One line, no stack trace: this repeats with backoff for as long as the store is down.
                LOG.error("Recovering jobs failed ({}); giving up leadership", Dispatcher.describe(error));
                giveUpLeadership(sessionId);
                return;
            }
            mainThread.execute(() -> failedLeaderships = 0);
            try {
                election.publish(sessionId, address, rest.url());
            } catch (Exception e) {
                LOG.error("Cannot publish the leader address; giving up leadership", e);
                giveUpLeadership(sessionId);
                return;
            }
            mainThread.execute(dispatcher::startRecoveredJobs);
        }, io);
    }

    /** @return completes when the old leadership's jobs' event logs are closed */
    private CompletableFuture<Void> standBy() {
        Leadership old = leadership;
        if (old == null) {
            return CompletableFuture.completedFuture(null);
        }
        leadership = null;
        readyDispatcher = null;
        rest.standingBy();
        old.heartbeatCheck.cancel();
        CompletableFuture<Void> logsClosed = old.dispatcher.close();
        old.resourceManager.close();
        if (closing) {
            LOG.info("JobManager {} gave up its leadership as it stops (was session {})", participantId, old.sessionId);
        } else {
            LOG.warn("JobManager {} stands by (was session {})", participantId, old.sessionId);
        }
        return logsClosed;
    }

    /**
     * Gives up leadership session {@code sessionId}; the election ignores it once that session has
     * ended, so a slow failure of an earlier leadership cannot end a later one.
     */
    private void giveUpLeadership(String sessionId) {
        mainThread.execute(() -> {
            failedLeaderships++;
            long delayMs = rejoinDelayMs(failedLeaderships);
            io.execute(() -> giveUp(sessionId, delayMs));
        });
    }

    /**
     * How long to stay out of the election after {@code failures} take-overs failed in a row: none
     * after the first (another JobManager may do better at once), then 1 s doubling up to 30 s,
     * so that a JobManager that cannot take over does not spin (a torn job graph file
     * made one give up and win again 165,000 times in 20 s).
     */
    static long rejoinDelayMs(int failures) {
        return failures <= 1 ? 0 : REJOIN_BACKOFF.delayBeforeAttempt(failures - 1).orElseThrow();
    }

    private static final CleanupRetryPolicy REJOIN_BACKOFF = CleanupRetryPolicy.exponentialDelay(
            java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(30), 0);

    private void giveUp(String sessionId, long delayMs) {
        try {
            election.giveUpAndRejoin(sessionId, delayMs);
        } catch (Exception e) {
            LOG.error("Cannot leave the leader election cleanly; exiting", e);
            Runtime.getRuntime().halt(70);
        }
    }

    /** The current leadership, or an UNAVAILABLE error for a standby. Main thread only. */
    Leadership leading() {
        if (leadership == null) {
            throw Status.UNAVAILABLE.withDescription("JobManager " + address + " is not the leader").asRuntimeException();
        }
        if (!leadership.ready) {
            throw Status.UNAVAILABLE.withDescription("JobManager " + address + " is taking over; try again shortly")
                    .asRuntimeException();
        }
        return leadership;
    }

    String sessionId() {
        return leading().sessionId;
    }

    /** Whether this JobManager leads now; main thread, or after {@link #close}. */
    boolean isLeading() {
        return leadership != null;
    }

    ResourceManager resourceManager() {
        return leading().resourceManager;
    }

    Dispatcher dispatcher() {
        return leading().dispatcher;
    }

    /** Where the jobs' directories are in the HA storage (any thread). */
    JobDirectories jobDirectories() {
        return new JobDirectories(ha.fileSystem(), ha.jobsDirectory());
    }

    /** This JobManager's configuration (any thread). */
    Configuration config() {
        return config;
    }

    /** Any thread: a running job's status as the leader last published it, or null (ask the main thread). */
    JobStatus publishedStatus(String jobId) {
        ReadyDispatcher ready = readyDispatcher;
        if (ready == null || ready.grantedAt() != leadershipChanges.get()) {
            return null;  // not leading, or the leadership was revoked and the main thread has yet to stand by
        }
        return ready.dispatcher().publishedStatus(jobId);
    }

    public String address() {
        return address;
    }

    public int port() {
        return server.getPort();
    }

    /** Where this JobManager serves its REST API and web UI ({@code http://host:port}), "" if it serves none. */
    public String restUrl() {
        return rest.url();
    }

    ThreadMailbox mainThread() {
        return mainThread;
    }

    long heartbeatIntervalMs() {
        return heartbeatIntervalMs;
    }

    long heartbeatTimeoutMs() {
        return heartbeatTimeoutMs;
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    @Override
    public void close() {
        closing = true;
        try {
            election.close();
        } catch (Exception e) {
            LOG.warn("Leaving the election failed", e);
        }
        server.shutdownNow();
        rest.close();
        try {
            server.awaitTermination(200, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Stand by on the main thread and wait for it, so that the jobs are suspended before the
        // threads they use go away, and for their event logs to close: nothing writes after close.
        try {
            mainThread.call(this::standBy).get(5, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("Standing by while closing failed: {}", e.toString());
        }
        if (metrics != null) {
            metrics.close();
        }
        mainThread.close();
        io.shutdownNow();
        userCode.shutdownNow();
        // A write the I/O threads had begun (a job's files in the HA directory) ends before close
        // returns: nothing of this JobManager writes after that.
        awaitStopped(io, "I/O");
        awaitStopped(userCode, "user code");
        ha.close();
    }

    private static void awaitStopped(ExecutorService executor, String what) {
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("The JobManager's {} threads did not stop within 5 s of its close", what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
