package io.duraflow.cli;

import io.duraflow.config.Configuration;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.ha.ZooKeeperClients;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.Empty;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobList;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The client's connection to the leading JobManager. With high availability it finds the
 * leader in ZooKeeper and, when a call finds no leader (failover in progress), looks again and
 * retries for up to {@code failoverTimeout}. A ZooKeeper that cannot be reached at the start is
 * an error within its connection timeout; one that goes away later is waited for like a
 * failover. gRPC errors become one-line CLI errors.
 */
public final class ClusterClient implements AutoCloseable {
    private final String staticAddress;
    private final HighAvailabilityServices ha;
    private final LeaderRetrieval retrieval;
    private final Duration failoverTimeout;
    private String address;
    private ManagedChannel channel;
    private DispatcherGatewayGrpc.DispatcherGatewayBlockingStub stub;
    /** Why the last look for the leader failed, if ZooKeeper was unreachable. */
    private ZooKeeperClients.UnreachableException zooKeeperDown;

    /** A client of the JobManager at a fixed address. */
    public ClusterClient(String address) {
        this.staticAddress = address;
        this.ha = null;
        this.retrieval = null;
        this.failoverTimeout = Duration.ZERO;
        connect(address);
    }

    /** A client that finds the leader as the configuration says (ZooKeeper, else {@code staticAddress}). */
    public ClusterClient(Configuration config, String staticAddress, Duration failoverTimeout) throws Exception {
        this.staticAddress = staticAddress;
        this.ha = HighAvailabilityServices.create(config);
        this.failoverTimeout = ha.isZooKeeper() ? failoverTimeout : Duration.ZERO;
        this.retrieval = ha.createLeaderRetrieval(staticAddress);
        LeaderInfo leader;
        try {
            leader = retrieval.awaitLeader(ha.isZooKeeper() ? failoverTimeout : Duration.ZERO);
        } catch (ZooKeeperClients.UnreachableException e) {
            close();
            throw new CliException(e.getMessage(), 1, e);
        }
        if (leader == null) {
            close();
            throw new CliException("no leading JobManager found in ZooKeeper within " + failoverTimeout.toSeconds()
                    + " s; is the cluster running?");
        }
        connect(leader.address());
    }

    private void connect(String target) {
        if (channel != null) {
            Rpc.shutdown(channel);
        }
        this.address = target;
        try {
            this.channel = Rpc.channel(target);
        } catch (IllegalArgumentException e) {
            throw new CliException("invalid JobManager address: " + e.getMessage());
        }
        this.stub = DispatcherGatewayGrpc.newBlockingStub(channel);
    }

    public String address() {
        return address;
    }

    private <T> T call(Function<DispatcherGatewayGrpc.DispatcherGatewayBlockingStub, T> call) {
        long deadline = System.nanoTime() + failoverTimeout.toNanos();
        while (true) {
            try {
                return call.apply(stub.withDeadlineAfter(30, TimeUnit.SECONDS));
            } catch (StatusRuntimeException e) {
                Status.Code code = e.getStatus().getCode();
                // A leader that dies mid-call shows up as UNAVAILABLE, or as a cancelled or unknown call
                // when its connection closes; every call here may be repeated (submissions carry their id).
                boolean noLeader = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
                        || code == Status.Code.CANCELLED || code == Status.Code.UNKNOWN;
                if (noLeader && retrieval != null && System.nanoTime() < deadline) {
                    lookAgain(deadline);
                    continue;
                }
                if (noLeader && zooKeeperDown != null) {
                    throw new CliException(zooKeeperDown.getMessage(), 1, zooKeeperDown);
                }
                String said = e.getStatus().getDescription();
                if (noLeader && said != null && said.contains("leader")) {
                    throw new CliException(said + "; ask the leading JobManager (with high availability, pass the"
                            + " cluster's configuration or --work-dir instead of --jobmanager)", 1, e);
                }
                if (noLeader) {
                    throw new CliException("cannot reach the JobManager at " + address + "; is the cluster running?"
                            + " Start one with 'duraflow local start' or pass --jobmanager host:port", 1, e);
                }
                throw new CliException(errorMessage(e, address), 1, e);
            }
        }
    }

    /**
     * What the JobManager answered, for the user: its description, or for an error without one
     * (an unexpected exception in the JobManager) the code and where to look.
     */
    static String errorMessage(StatusRuntimeException e, String address) {
        String description = e.getStatus().getDescription();
        if (description == null || description.isBlank() || description.equals("null")) {
            return "the JobManager at " + address + " failed the request with " + e.getStatus().getCode()
                    + " and gave no reason; its log has the cause";
        }
        return Rpc.message(e);
    }

    private void lookAgain(long deadline) {
        try {
            Thread.sleep(200);
            LeaderInfo leader = retrieval.awaitLeader(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            if (leader != null && !leader.address().equals(address)) {
                connect(leader.address());
            }
            zooKeeperDown = null;
        } catch (ZooKeeperClients.UnreachableException e) {
            // Once connected, a client rides out a ZooKeeper outage up to the failover timeout (a
            // 'run' following its job should not give up on a short one); the caller tries again
            // and reports this if ZooKeeper is still down then.
            zooKeeperDown = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while looking for the leading JobManager");
        }
    }

    /**
     * Submits a job. A submission sent again after a failover (the earlier send got no answer
     * the client could use, yet a leader may have stored its job graph, and the next leader runs
     * it) is marked as a resubmission: a job of its id with the same submission is then answered
     * as this client's own instead of "already running". Only with a job id the client chose:
     * without one, the JobManager picks an id per send, so a retry may start a second job ('run'
     * always chooses one).
     */
    public SubmitJobResponse submit(SubmitJobRequest request) {
        SubmitJobRequest resent = resubmission(request);
        boolean[] sent = {false};
        return call(s -> {
            SubmitJobRequest next = sent[0] ? resent : request;
            sent[0] = true;
            return s.submitJob(next);
        });
    }

    /**
     * Submits a job with its jar, streamed to the JobManager in chunks of 1 MiB (retried like
     * {@link #submit}, the jar sent again).
     */
    public SubmitJobResponse submitJar(SubmitJobRequest request, java.nio.file.Path jar) {
        SubmitJobRequest resent = resubmission(request);
        boolean[] sent = {false};
        return call(s -> {
            SubmitJobRequest next = sent[0] ? resent : request;
            sent[0] = true;
            return uploadAndSubmit(next, jar);
        });
    }

    private SubmitJobResponse uploadAndSubmit(SubmitJobRequest request, java.nio.file.Path jar) {
        java.util.concurrent.CompletableFuture<SubmitJobResponse> answer;
        try {
            answer = io.duraflow.client.JarSubmissions.send(DispatcherGatewayGrpc.newStub(channel)
                    .withDeadlineAfter(10, TimeUnit.MINUTES)::submitJar, request, jar);
        } catch (java.io.IOException e) {
            throw new CliException("cannot read jar " + jar + ": " + e.getMessage(), 1, e);
        }
        try {
            return answer.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof StatusRuntimeException status) {
                throw status;
            }
            throw new CliException("submitting jar " + jar + " failed: " + e.getCause(), 1, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while submitting jar " + jar);
        }
    }

    /** What {@link #submit} sends after the first send of {@code request} got no answer it could use. */
    static SubmitJobRequest resubmission(SubmitJobRequest request) {
        return request.getJobId().isEmpty() ? request : request.toBuilder().setResubmission(true).build();
    }

    public JobStatus status(String jobId) {
        return call(s -> s.getJobStatus(JobIdRequest.newBuilder().setJobId(jobId).build()));
    }

    public JobResult result(String jobId) {
        return call(s -> s.getJobResult(JobIdRequest.newBuilder().setJobId(jobId).build()));
    }

    public JobList list() {
        return call(s -> s.listJobs(Empty.getDefaultInstance()));
    }

    public void cancel(String jobId) {
        call(s -> s.cancelJob(JobIdRequest.newBuilder().setJobId(jobId).build()));
    }

    /** Waits for the savepoint (up to 15 minutes: a savepoint of large state takes a while). */
    public io.duraflow.rpc.proto.TriggerSavepointResponse triggerSavepoint(
            io.duraflow.rpc.proto.TriggerSavepointRequest request) {
        return call(s -> s.withDeadlineAfter(15, TimeUnit.MINUTES).triggerSavepoint(request));
    }

    public io.duraflow.rpc.proto.JobCheckpoints checkpoints(String jobId) {
        return call(s -> s.getJobCheckpoints(JobIdRequest.newBuilder().setJobId(jobId).build()));
    }

    public io.duraflow.rpc.proto.JobEvents events(String jobId) {
        return call(s -> s.getJobEvents(JobIdRequest.newBuilder().setJobId(jobId).build()));
    }

    public ClusterOverview overview() {
        return call(s -> s.getClusterOverview(Empty.getDefaultInstance()));
    }

    @Override
    public void close() {
        if (channel != null) {
            Rpc.shutdown(channel);
        }
        try {
            if (retrieval != null) {
                retrieval.close();
            }
        } catch (Exception ignored) {
            // closing anyway
        }
        if (ha != null) {
            ha.close();
        }
    }
}
