package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CoordinatorHarness.ALL;
import static io.duraflow.checkpoint.CoordinatorHarness.SUM_0;
import static io.duraflow.checkpoint.CoordinatorHarness.config;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end of a {@link CheckpointCoordinator} with its job: pending checkpoints are aborted without
 * counting as failures, no trigger follows, and a checkpoint that is already finalizing is made
 * durable before the shutdown completes.
 */
class CheckpointCoordinatorShutdownTest {
    private static final long INTERVAL = 100;
    private static final long TIMEOUT = 1_000;

    @TempDir
    Path tmp;

    private CoordinatorHarness started(CheckpointCoordinatorConfig config) {
        return CoordinatorHarness.started(tmp, config);
    }

    @Test
    void shutdownAbortsPendingCheckpointsWithoutCountingThem() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        h.advance(INTERVAL);
        h.ack(SUM_0, 1);

        h.coordinator.shutdown();
        h.settle();

        assertThat(h.exists(h.directories.checkpoint(1))).isFalse();
        assertThat(h.jobFailures).isEmpty();
        h.advance(10 * INTERVAL);
        assertThat(h.tasks.triggers).hasSize(1);
        assertThat(h.coordinator.triggerCheckpoint()).isCompletedExceptionally();
        assertThat(List.copyOf(h.coordinator.history())).hasSize(1);
    }

    @Test
    void shutdownCompletesOnlyOnceAFinalizingCheckpointIsDurable() throws Exception {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        h.advance(INTERVAL);
        h.ackAll(1);
        h.advance(INTERVAL);
        for (CheckpointTask task : ALL) {
            h.ack(task, 2);
        }
        // Every task acknowledged checkpoint 2: its metadata and pointer are queued on the I/O
        // executor when the job ends. Whoever cleans up the job's checkpoints must wait for it.
        CompletableFuture<Void> quiesced = h.coordinator.shutdown();
        assertThat(quiesced).isNotDone();

        h.settle();

        assertThat(quiesced).isCompleted();
        assertThat(h.store.recover()).extracting(CompletedCheckpoint::checkpointId).containsExactly(2L);
        assertThat(h.exists(h.directories.checkpoint(2).resolve("_metadata"))).isTrue();
        assertThat(h.exists(h.directories.checkpoint(1))).isFalse();
    }

    @Test
    void shutdownWithNothingFinalizingCompletesAtOnce() {
        CoordinatorHarness h = started(config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        h.advance(INTERVAL);
        h.ack(SUM_0, 1);

        assertThat(h.coordinator.shutdown()).isCompleted();
    }
}
