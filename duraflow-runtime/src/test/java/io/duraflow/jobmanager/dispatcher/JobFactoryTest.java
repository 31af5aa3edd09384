package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.checkpoint.StandaloneCheckpointIdCounter;
import io.duraflow.config.Configuration;
import io.duraflow.config.RuntimeMode;
import io.duraflow.examples.WordCount;
import io.duraflow.jobstore.SubmittedJob;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a job master gets around it: an event log for batch jobs, a checkpoint coordinator for streaming ones. */
class JobFactoryTest {
    @TempDir
    Path dir;

    private final ManualMailbox main = new ManualMailbox();

    private JobFactory factory() {
        ResourceManager resourceManager = new ResourceManager(main, main::now, 10_000, new RecordingGateways(main));
        return new JobFactory(Configuration.fromMap(Map.of("execution.batch.job-recovery.enabled", "on")),
                "session-1", resourceManager, main, main::now, JobDirectories.local(dir.resolve("jobs")), Runnable::run,
                job -> { }, Runnable::run, () -> true, jobId -> new StandaloneCheckpointIdCounter());
    }

    private static SubmittedJob wordCount(Map<String, String> config) {
        return new SubmittedJob("job-1", WordCount.class.getName(), Map.of("words", "100"), config, 2, 0);
    }

    private JobFactory.Built build(Map<String, String> config) {
        try {
            return factory().build(wordCount(config)).join();
        } catch (CompletionException e) {
            throw (RuntimeException) e.getCause();
        }
    }

    @Test
    void aStreamingJobWithCheckpointingGetsACoordinatorAndNoBatchEventLog() {
        JobFactory.Built built = build(Map.of("execution.runtime-mode", "streaming",
                "execution.checkpointing.interval", "1s", "execution.checkpointing.dir", dir.resolve("chk").toString()));
        assertThat(built.graph().mode()).isEqualTo(RuntimeMode.STREAMING);

        JobFactory.Created created = factory().create(built);

        assertThat(created.job().checkpointCoordinator()).isNotNull();
        assertThat(created.writer()).as("streaming jobs restart from checkpoints, not the batch event log").isNull();
    }

    @Test
    void aStreamingJobWithoutCheckpointingGetsNeither() {
        JobFactory.Created created = factory().create(build(Map.of("execution.runtime-mode", "streaming")));

        assertThat(created.job().checkpointCoordinator()).isNull();
        assertThat(created.writer()).isNull();
    }

    @Test
    void aBatchJobGetsItsEventLogAndNoCoordinator() {
        JobFactory.Created created = factory().create(build(Map.of("execution.checkpointing.interval", "1s",
                "execution.checkpointing.dir", dir.resolve("chk").toString())));

        assertThat(created.job().checkpointCoordinator()).isNull();
        assertThat(created.writer()).isNotNull();
        created.writer().abandon();
    }

    @Test
    void aStreamingJobWithAnIntervalButNoDirectoryIsRefusedSayingWhatToSet() {
        assertThatThrownBy(() -> build(Map.of("execution.runtime-mode", "streaming",
                "execution.checkpointing.interval", "1s")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("execution.checkpointing.dir");
                });
    }
}
