package io.duraflow.cli;

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
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** The client's connection to a JobManager; turns gRPC errors into one-line CLI errors. */
public final class ClusterClient implements AutoCloseable {
    private final String address;
    private final ManagedChannel channel;
    private final DispatcherGatewayGrpc.DispatcherGatewayBlockingStub stub;

    public ClusterClient(String address) {
        this.address = address;
        try {
            this.channel = Rpc.channel(address);
        } catch (IllegalArgumentException e) {
            throw new CliException("invalid JobManager address: " + e.getMessage());
        }
        this.stub = DispatcherGatewayGrpc.newBlockingStub(channel);
    }

    String address() {
        return address;
    }

    private <T> T call(Function<DispatcherGatewayGrpc.DispatcherGatewayBlockingStub, T> call) {
        try {
            return call.apply(stub.withDeadlineAfter(30, TimeUnit.SECONDS));
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            if (code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED) {
                throw new CliException("cannot reach the JobManager at " + address + "; is the cluster running?"
                        + " Start one with 'duraflow local start' or pass --jobmanager host:port", 1, e);
            }
            throw new CliException(Rpc.message(e), 1, e);
        }
    }

    public SubmitJobResponse submit(SubmitJobRequest request) {
        return call(s -> s.submitJob(request));
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

    public ClusterOverview overview() {
        return call(s -> s.getClusterOverview(Empty.getDefaultInstance()));
    }

    @Override
    public void close() {
        Rpc.shutdown(channel);
    }
}
