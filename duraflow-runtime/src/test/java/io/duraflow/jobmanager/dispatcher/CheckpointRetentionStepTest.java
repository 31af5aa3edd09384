package io.duraflow.jobmanager.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.checkpoint.CheckpointDirectoryScan;
import io.duraflow.checkpoint.CheckpointKind;
import io.duraflow.checkpoint.CheckpointMetadataFormat;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.FileSystemCompletedCheckpointStore;
import io.duraflow.checkpoint.OperatorCheckpointState;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rules of {@link CheckpointRetentionStep}, over real directories and a real completed-checkpoint store. */
class CheckpointRetentionStepTest {
    private static final String JOB = "0123456789abcdef";

    @TempDir
    Path dir;

    private final FileSystem fs = LocalFileSystem.INSTANCE;

    private Configuration cluster() {
        return Configuration.fromMap(Map.of("execution.checkpointing.dir", dir.toString()));
    }

    private FsPath haJobDirectory() {
        return FsPath.of(dir.resolve("ha").resolve(JOB));
    }

    private CheckpointDirectories directories() {
        return CheckpointDirectories.of(FsPath.of(dir), JOB);
    }

    private void run(Map<String, String> jobConfig, JobOutcome outcome) throws IOException {
        CheckpointRetentionStep.run(cluster(), jobConfig, JOB, outcome, fs, haJobDirectory());
    }

    private FsPath write(FsPath file) throws IOException {
        fs.writeFile(file, new byte[10], WriteMode.OVERWRITE);
        return file;
    }

    /** A retained checkpoint {@code id} (metadata, pointer) whose keyed state reuses {@code sharedFile}. */
    private CompletedCheckpoint retain(FileSystemCompletedCheckpointStore store, long id, FsPath sharedFile)
            throws IOException {
        FsPath manifest = write(directories().checkpoint(id).resolve("MANIFEST"));
        IncrementalKeyedStateHandle handle = new IncrementalKeyedStateHandle("b", id, new KeyGroupRange(0, 7),
                List.of(new IncrementalKeyedStateHandle.SharedFile("000001.sst", new FileSegmentHandle(sharedFile, 0,
                        10), id > 1)),
                List.of(new IncrementalKeyedStateHandle.PrivateFile("MANIFEST", new FileSegmentHandle(manifest, 0, 10))),
                new InlineStateHandle(new byte[] {1}));
        CompletedCheckpoint checkpoint = new CompletedCheckpoint(JOB, id, id, id, 8, CheckpointKind.CHECKPOINT,
                Map.of("sum", new OperatorCheckpointState("sum", 1, null, Map.of(0, new OperatorSubtaskState(
                        List.of(handle), List.of())))), directories().metadata(id));
        CheckpointMetadataFormat.write(fs, checkpoint);
        store.add(checkpoint);
        return checkpoint;
    }

    private FileSystemCompletedCheckpointStore store(int numRetained) {
        return new FileSystemCompletedCheckpointStore(fs, fs,
                FileSystemCompletedCheckpointStore.pointerDirectory(haJobDirectory()), JOB, numRetained, () -> true);
    }

    /** Two retained checkpoints sharing a file, plus what a pending checkpoint and a subsumed one left. */
    private List<CompletedCheckpoint> checkpointsOfTheJobWithLeftovers() throws IOException {
        FsPath sst = write(directories().shared().resolve("b-1-000001.sst"));
        FileSystemCompletedCheckpointStore store = store(2);
        List<CompletedCheckpoint> retained = List.of(retain(store, 3, sst), retain(store, 4, sst));
        write(directories().shared().resolve("b-5-000002.sst")); // uploaded for pending checkpoint 5
        write(directories().checkpoint(5).resolve("MANIFEST"));
        write(directories().checkpoint(2).resolve("MANIFEST")); // subsumed, its deletion never ran
        return retained;
    }

    @Test
    void rule1ByDefaultAFinishedOrCancelledJobsCheckpointsAreDeletedWhole() throws Exception {
        for (JobOutcome outcome : List.of(JobOutcome.FINISHED, JobOutcome.CANCELED)) {
            checkpointsOfTheJobWithLeftovers();
            run(Map.of(), outcome);
            assertThat(dir.resolve(JOB)).as("checkpoints of a job that ended as %s", outcome).doesNotExist();
            fs.deleteRecursively(haJobDirectory());
        }
    }

    @Test
    void rule2AFailedJobKeepsExactlyItsRetainedCheckpointsAndWhatTheyReferTo() throws Exception {
        List<CompletedCheckpoint> retained = checkpointsOfTheJobWithLeftovers();

        run(Map.of(), JobOutcome.FAILED);

        CheckpointDirectoryScan.Result scan = CheckpointDirectoryScan.scan(fs, directories(), retained);
        assertThat(scan.describe()).isEmpty();
        assertThat(scan.emptyDirectories()).isEmpty();
        assertThat(dir.resolve(JOB).resolve("chk-5")).doesNotExist();
        assertThat(dir.resolve(JOB).resolve("chk-2")).doesNotExist();
        assertThat(dir.resolve(JOB).resolve("chk-3/_metadata")).exists();
        assertThat(dir.resolve(JOB).resolve("shared/b-1-000001.sst")).exists();
    }

    @Test
    void rule2RetainOnCancellationKeepsTheRetainedCheckpointsAndTheJobsOwnSettingWins() throws Exception {
        List<CompletedCheckpoint> retained = checkpointsOfTheJobWithLeftovers();

        run(Map.of("execution.checkpointing.retention", "retain-on-cancellation"), JobOutcome.CANCELED);

        assertThat(CheckpointDirectoryScan.scan(fs, directories(), retained).describe()).isEmpty();
        assertThat(CheckpointDirectoryScan.checkpointsWithMetadata(fs, directories(), JOB)).isEqualTo(retained);
    }

    @Test
    void rule2AJobThatRetainedNoCheckpointLeavesNothing() throws Exception {
        write(directories().checkpoint(1).resolve("MANIFEST"));
        write(directories().shared().resolve("b-1-000001.sst"));

        run(Map.of(), JobOutcome.FAILED);

        assertThat(dir.resolve(JOB)).doesNotExist();
    }

    @Test
    void rule3AnUnreadablePointerKeepsEverything() throws Exception {
        checkpointsOfTheJobWithLeftovers();
        Files.write(dir.resolve("ha").resolve(JOB).resolve("checkpoints").resolve(String.format("checkpoint-%019d", 4)),
                new byte[] {1, 2, 3});

        run(Map.of(), JobOutcome.FAILED);

        assertThat(dir.resolve(JOB).resolve("chk-5/MANIFEST")).exists();
        assertThat(dir.resolve(JOB).resolve("shared/b-5-000002.sst")).exists();
    }

    @Test
    void rule4ASavepointInsideTheDirectoryIsNeverDeleted() throws Exception {
        checkpointsOfTheJobWithLeftovers();
        FsPath savepoint = write(directories().jobDirectory().resolve("savepoint-" + JOB + "-9/_metadata"));

        run(Map.of(), JobOutcome.FAILED);

        assertThat(Files.exists(savepoint.toLocalPath())).isTrue();
    }

    @Test
    void theJobsDirectoryOverridesTheClustersAndARepeatedRunIsHarmless() throws Exception {
        Path other = Files.createDirectories(dir.resolve("other"));
        Files.createDirectories(other.resolve(JOB).resolve("chk-1"));
        checkpointsOfTheJobWithLeftovers();

        assertThat(CheckpointRetentionStep.directoryToDelete(cluster(), Map.of("execution.checkpointing.dir",
                other.toString()), JOB, JobOutcome.FINISHED)).contains(FsPath.of(other.resolve(JOB)));
        run(Map.of("execution.checkpointing.dir", other.toString()), JobOutcome.FINISHED);
        run(Map.of("execution.checkpointing.dir", other.toString()), JobOutcome.FINISHED);

        assertThat(other.resolve(JOB)).doesNotExist();
        assertThat(dir.resolve(JOB).resolve("chk-5")).exists();
    }

    @Test
    void withoutADirectoryOrWithAnInvalidConfigurationNothingIsDeleted() throws Exception {
        assertThat(CheckpointRetentionStep.directoryToDelete(Configuration.fromMap(Map.of()), Map.of(), JOB,
                JobOutcome.FINISHED)).isEmpty();
        checkpointsOfTheJobWithLeftovers();
        run(Map.of("execution.checkpointing.retention", "sometimes"), JobOutcome.FINISHED);
        assertThat(dir.resolve(JOB).resolve("chk-5")).exists();
    }
}
