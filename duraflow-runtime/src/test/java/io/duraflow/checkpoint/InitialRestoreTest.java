package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CoordinatorHarness.config;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checkpoint coordinator's rule 9: restoring what a job was submitted with (run --from-savepoint). */
class InitialRestoreTest {
    private static final long INTERVAL = 100;
    private static final long SAVEPOINT_ID = 7;

    @TempDir
    Path tmp;

    private FsPath savepointDirectory;
    private FsPath savepointFile;

    /** Savepoint 7 of another job, with one state file inside its directory. */
    private FsPath writeSavepoint(CoordinatorHarness h) throws Exception {
        savepointDirectory = FsPath.of(tmp.resolve("savepoints/savepoint-old-7"));
        savepointFile = savepointDirectory.resolve("state");
        h.fs.writeFile(savepointFile, new byte[10], WriteMode.EXCLUSIVE);
        KeyGroupRange all = new KeyGroupRange(0, CoordinatorHarness.MAX_PARALLELISM - 1);
        CompletedCheckpoint savepoint = new CompletedCheckpoint("old", SAVEPOINT_ID, 1, 2,
                CoordinatorHarness.MAX_PARALLELISM, CheckpointKind.SAVEPOINT, Map.of("sum",
                        new OperatorCheckpointState("sum", 1, null, Map.of(0, new OperatorSubtaskState(List.of(
                                new KeyGroupsStateHandle(all, new long[all.size()],
                                        new FileSegmentHandle(savepointFile, 0, 10))), List.of())))),
                savepointDirectory.resolve("_metadata"));
        CheckpointMetadataFormat.write(h.fs, savepoint);
        return savepoint.metadataFile();
    }

    private CoordinatorHarness harness() {
        return new CoordinatorHarness(tmp, config(INTERVAL, 1_000, 0, 1, 5, 1));
    }

    private static Optional<CompletedCheckpoint> restore(CoordinatorHarness h) {
        var restored = h.coordinator.restoreLatest();
        h.settle();
        return restored.join();
    }

    @Test
    void noClaimRestoresTheSavepointUntilAFullCheckpointOfTheJobCompletesAndNeverTouchesItsFiles() throws Exception {
        CoordinatorHarness h = harness();
        FsPath metadata = writeSavepoint(h);
        h.coordinator.initialRestore(new InitialRestore(metadata, false));

        assertThat(restore(h)).hasValueSatisfying(restored -> assertThat(restored.checkpointId())
                .isEqualTo(SAVEPOINT_ID));
        h.coordinator.startPeriodic();
        h.advance(INTERVAL);
        assertThat(h.tasks.triggers).singleElement().satisfies(trigger -> {
            assertThat(trigger.checkpointId()).as("the id counter starts above the savepoint's").isEqualTo(8);
            assertThat(trigger.full()).isTrue();
        });
        h.coordinator.decline(CoordinatorHarness.SOURCE_0, 8, CheckpointFailureReason.DECLINED, "not now");
        // A restart before the job's first checkpoint restores the savepoint again; checkpoints stay full.
        assertThat(restore(h)).hasValueSatisfying(restored -> assertThat(restored.jobId()).isEqualTo("old"));
        h.advance(INTERVAL);
        assertThat(h.tasks.triggers.get(1).full()).isTrue();
        long first = h.tasks.triggers.get(1).checkpointId();
        h.ackAll(first);
        h.advance(INTERVAL);
        long second = h.tasks.triggers.get(2).checkpointId();
        h.ackAll(second);

        assertThat(h.tasks.triggers.get(2).full()).as("the checkpoint after the first completed one").isFalse();
        assertThat(h.exists(savepointFile)).isTrue();
        assertThat(h.exists(savepointDirectory.resolve("_metadata"))).isTrue();
        assertThat(restore(h)).as("a restart once the job has a checkpoint of its own")
                .hasValueSatisfying(restored -> assertThat(restored.checkpointId()).isEqualTo(second));
    }

    @Test
    void claimAdoptsTheRestoredCheckpointAndDeletesItOnceTheJobsFirstCheckpointSubsumesIt() throws Exception {
        CoordinatorHarness h = harness();
        FsPath metadata = writeSavepoint(h);
        h.coordinator.initialRestore(new InitialRestore(metadata, true));
        assertThat(restore(h)).isPresent();
        h.coordinator.startPeriodic();
        h.advance(INTERVAL);
        CheckpointTrigger trigger = h.tasks.triggers.get(0);
        assertThat(trigger.checkpointId()).isEqualTo(8);
        assertThat(trigger.full()).as("a claimed checkpoint is the job's own: no need for a full one").isFalse();
        assertThat(h.exists(savepointFile)).isTrue();

        h.ackAll(8);

        assertThat(h.exists(savepointFile)).isFalse();
        assertThat(h.exists(savepointDirectory)).isFalse();
    }

    @Test
    void aNewLeaderWhoseStoreHoldsACheckpointOfTheJobNeverReadsTheSavepointAgain() throws Exception {
        CoordinatorHarness h = harness();
        FsPath metadata = writeSavepoint(h);
        h.coordinator.initialRestore(new InitialRestore(metadata, false));
        restore(h);
        h.coordinator.startPeriodic();
        h.advance(INTERVAL);
        h.ackAll(8);
        h.fs.deleteRecursively(savepointDirectory); // the user deletes the savepoint

        CoordinatorHarness next = new CoordinatorHarness(tmp, config(INTERVAL, 1_000, 0, 1, 5, 1));
        next.coordinator.initialRestore(new InitialRestore(metadata, false));

        assertThat(restore(next)).hasValueSatisfying(restored -> {
            assertThat(restored.jobId()).isEqualTo(CoordinatorHarness.JOB);
            assertThat(restored.checkpointId()).isEqualTo(8);
        });
    }
}
