package io.duraflow.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.examples.WordCount;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GetJobCheckpoints} over gRPC on loopback, answered on the JobManager's main thread: a
 * streaming job with checkpointing gets its report; every other case is one line that says why.
 * No TaskManager runs, so submitted jobs stay running (waiting for slots) until cancelled.
 */
class JobCheckpointsRpcTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private JobManagerRunner jobManager;
    private ManagedChannel channel;
    private DispatcherGatewayGrpc.DispatcherGatewayBlockingStub dispatcher;

    @BeforeEach
    void startJobManager() throws Exception {
        jobManager = JobManagerRunner.start(Configuration.fromMap(Map.of("cluster.work-dir",
                dir.resolve("work").toString(), "jobmanager.rpc.port", "0")));
        channel = Rpc.channel("127.0.0.1:" + jobManager.port());
        dispatcher = DispatcherGatewayGrpc.newBlockingStub(channel);
    }

    @AfterEach
    void stop() {
        Rpc.shutdown(channel);
        jobManager.close();
    }

    private String submit(String jobId, Map<String, String> config) {
        return await().atMost(TIMEOUT).ignoreExceptions().until(() -> dispatcher.submitJob(SubmitJobRequest
                .newBuilder().setJobId(jobId).setJobClass(WordCount.class.getName()).putParams("words", "100")
                .putAllConfig(config).build()).getJobId(), id -> !id.isEmpty());
    }

    private JobCheckpoints checkpoints(String jobId) {
        return dispatcher.getJobCheckpoints(JobIdRequest.newBuilder().setJobId(jobId).build());
    }

    /** The error the request fails with, once the JobManager leads. */
    private StatusRuntimeException refusal(String jobId) {
        return await().atMost(TIMEOUT).until(() -> {
            try {
                checkpoints(jobId);
                return new StatusRuntimeException(Status.OK);
            } catch (StatusRuntimeException e) {
                return e;
            }
        }, e -> e.getStatus().getCode() != Status.Code.UNAVAILABLE);
    }

    @Test
    void aStreamingJobWithCheckpointingGetsItsIntervalAndNoCheckpointsBeforeItRuns() {
        String jobId = submit("streaming-1", Map.of("execution.runtime-mode", "streaming",
                "execution.checkpointing.interval", "1500ms",
                "execution.checkpointing.dir", dir.resolve("chk").toString()));

        JobCheckpoints report = checkpoints(jobId);

        assertThat(report.getJobId()).isEqualTo("streaming-1");
        assertThat(report.getIntervalMs()).isEqualTo(1500);
        assertThat(report.getCompleted()).isZero();
        assertThat(report.getFailed()).isZero();
        assertThat(report.getLatestCompletedId()).isZero();
        assertThat(report.getRestoredFromId()).isZero();
        assertThat(report.getCheckpointsList()).isEmpty();
        assertThat(report.getNowMs()).isPositive();
    }

    @Test
    void anUnknownJobIsNotFound() {
        StatusRuntimeException refused = refusal("no-such-job");

        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(refused.getStatus().getDescription()).contains("no job with id 'no-such-job'");
    }

    @Test
    void aBatchJobTakesNoCheckpoints() {
        String jobId = submit("batch-1", Map.of());

        StatusRuntimeException refused = refusal(jobId);

        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(refused.getStatus().getDescription()).isEqualTo("job batch-1 is a batch job: it takes no checkpoints");
    }

    @Test
    void aStreamingJobWithCheckpointingOffSaysWhatToSet() {
        String jobId = submit("streaming-2", Map.of("execution.runtime-mode", "streaming"));

        StatusRuntimeException refused = refusal(jobId);

        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(refused.getStatus().getDescription()).startsWith("job streaming-2 runs with checkpointing off")
                .contains("execution.checkpointing.interval").doesNotContain("\n");
    }

    @Test
    void aJobThatEndedHasNoJobMasterLeftToAsk() {
        String jobId = submit("streaming-3", Map.of("execution.runtime-mode", "streaming",
                "execution.checkpointing.interval", "1s", "execution.checkpointing.dir", dir.resolve("chk").toString()));
        dispatcher.cancelJob(JobIdRequest.newBuilder().setJobId(jobId).build());
        await().atMost(TIMEOUT).until(() -> dispatcher.getJobStatus(JobIdRequest.newBuilder().setJobId(jobId).build())
                .getState() == JobState.JOB_CANCELED);

        StatusRuntimeException refused = await().atMost(TIMEOUT).until(() -> refusal(jobId),
                e -> e.getStatus().getCode() != Status.Code.OK);

        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(refused.getStatus().getDescription()).isEqualTo("job streaming-3 has ended (CANCELED): its"
                + " checkpoint statistics ended with it; 'duraflow result streaming-3' shows its result");
    }
}
