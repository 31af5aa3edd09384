package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.IncrementalKeyedStateHandle.PrivateFile;
import io.duraflow.state.IncrementalKeyedStateHandle.SharedFile;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rules of {@link StateFileRegistry}, one test each. */
class StateFileRegistryTest {
    private final CheckpointDirectories directories = CheckpointDirectories.of(FsPath.parse("/ckpt"), "j");
    private final StateFileRegistry registry = new StateFileRegistry(directories);
    private final FsPath shared = directories.shared().resolve("sst-1");
    private final FsPath own1 = directories.checkpoint(1).resolve("state");
    private final FsPath own2 = directories.checkpoint(2).resolve("state");

    @Test
    void rules1And2AFileUsedByTwoCheckpointsGoesOnlyWithTheLast() {
        registry.register(1, Set.of(shared, own1));
        registry.register(2, Set.of(shared, own2));
        registry.register(2, Set.of(shared)); // a second task's segment of the same file: still one reference

        assertThat(registry.references(shared)).isEqualTo(2);
        assertThat(registry.release(1)).containsExactly(own1);
        assertThat(registry.isReferenced(shared)).isTrue();
        assertThat(registry.release(2)).containsExactly(own2, shared);
        assertThat(registry.referencedFiles()).isZero();
        assertThat(registry.release(2)).isEmpty();
    }

    @Test
    void rule3TaskOwnedFilesAndFilesOfAnUnclaimedRestoreAreNeverTheJobManagersToDelete() {
        FsPath merged = directories.taskOwned().resolve("tm-1/merged-7");
        FsPath savepointFile = FsPath.parse("/savepoints/savepoint-old-4/state");
        registry.register(1, Set.of(merged, own1, savepointFile));

        assertThat(registry.isReferenced(merged)).isTrue();
        assertThat(registry.release(1)).containsExactly(own1);
        assertThat(registry.isReferenced(merged)).isFalse();
    }

    @Test
    void rule3AClaimedRestoreHandsItsFilesToTheJob() {
        FsPath otherJobs = FsPath.parse("/ckpt/old-job/shared/sst-9");
        registry.claim(List.of(otherJobs));
        registry.register(1, Set.of(otherJobs));
        registry.register(2, Set.of(otherJobs));

        assertThat(registry.release(1)).isEmpty();
        assertThat(registry.release(2)).containsExactly(otherJobs);
        assertThat(registry.isOwned(otherJobs)).isFalse(); // gone, so no longer claimed
    }

    @Test
    void rule4OnlyFilesNoCheckpointRefersToAreUnknown() {
        FsPath gone = directories.shared().resolve("sst-0");
        registry.register(1, Set.of(shared));

        assertThat(registry.unknown(List.of(shared, gone))).containsExactly(gone);
        registry.release(1);
        assertThat(registry.unknown(List.of(shared))).containsExactly(shared);
    }

    @Test
    void rule5ARebuildMakesEachRetainedCheckpointReferToExactlyItsMetadataAndKeepsOtherReferences() {
        FsPath sst = directories.shared().resolve("b-000007.sst");
        FsPath manifest = directories.checkpoint(3).resolve("MANIFEST");
        FsPath stale = directories.shared().resolve("b-000001.sst");
        FsPath finalizing = directories.checkpoint(4).resolve("state");
        registry.register(3, Set.of(stale)); // what this registry thought before the restore
        registry.register(4, Set.of(finalizing));

        registry.rebuild(List.of(checkpointWith(3, sst, manifest)));

        assertThat(registry.isReferenced(stale)).isFalse();
        assertThat(registry.isReferenced(sst)).isTrue();
        assertThat(registry.isReferenced(finalizing)).isTrue();
        assertThat(registry.release(3)).containsExactly(manifest, sst);
    }

    @Test
    void rule6TheOrphansOfAListingAreTheOwnedFilesNobodyRefersTo() {
        FsPath orphan = directories.shared().resolve("sst-2");
        FsPath merged = directories.taskOwned().resolve("tm-1/merged-1");
        registry.register(1, Set.of(shared));

        assertThat(registry.unreferencedOwned(List.of(shared, orphan, merged))).containsExactly(orphan);
    }

    // ------------------------------------------------------------------ file merging (rules 3, 5, 7)

    private final FsPath subtaskDirectory = directories.sharedFileMergingDirectory("subtask-0-2-v1");
    private final FsPath runDirectory = directories.taskOwnedFileMergingDirectory("tm-1-run1");
    private final FsPath merged = subtaskDirectory.resolve("merged-1");

    @Test
    void rule7ADirectoryNamedByAPendingCheckpointThatAbortsIsNotReleased() {
        registry.name(1, List.of(subtaskDirectory));

        assertThat(registry.isNamed(subtaskDirectory)).isTrue();
        assertThat(registry.release(1)).isEmpty(); // the abort: the writer may live on
        assertThat(registry.isNamed(subtaskDirectory)).isFalse();
        assertThat(registry.releaseSubsumed(1).directories()).isEmpty();
    }

    @Test
    void rule7ADirectoryGoesWhenTheLastCompletedCheckpointThatNamesItIsSubsumed() {
        registry.name(1, List.of(subtaskDirectory, runDirectory));
        registry.name(2, List.of(subtaskDirectory, runDirectory));
        registry.name(2, List.of(subtaskDirectory)); // a second task's acknowledgement: still one name
        registry.name(3, List.of(runDirectory));

        assertThat(registry.releaseSubsumed(1)).isEqualTo(new StateFileRegistry.Released(List.of(), List.of()));
        assertThat(registry.releaseSubsumed(2).directories()).containsExactly(subtaskDirectory);
        assertThat(registry.isNamed(runDirectory)).isTrue();
        assertThat(registry.releaseSubsumed(3).directories()).containsExactly(runDirectory);
        assertThat(registry.releaseSubsumed(3).directories()).isEmpty();
    }

    @Test
    void rule7ACheckpointReferringToAFileInADirectoryNamesIt() {
        registry.name(1, List.of(subtaskDirectory));
        registry.register(2, Set.of(merged)); // pending: its snapshot reuses a segment of the file

        assertThat(registry.releaseSubsumed(1).directories()).isEmpty();
        assertThat(registry.releaseSubsumed(2)).isEqualTo(new StateFileRegistry.Released(List.of(),
                List.of(subtaskDirectory)));
    }

    @Test
    void rule7OnlyTheJobsOwnFileMergingDirectoriesAreNamed() {
        FsPath otherJobs = FsPath.parse("/ckpt/other-job/shared/subtask-0-2-v1");
        FsPath notAFileMergingDirectory = directories.shared().resolve("a/b");
        registry.name(1, List.of(otherJobs, notAFileMergingDirectory, directories.shared()));
        registry.register(1, Set.of(otherJobs.resolve("merged-1"), directories.shared().resolve("000007.sst")));

        assertThat(registry.isNamed(otherJobs)).isFalse();
        assertThat(registry.isNamed(directories.shared())).isFalse();
        assertThat(registry.releaseSubsumed(1).directories()).isEmpty();
    }

    @Test
    void rule3AMergedFileIsNeverReturnedUnlessAdoptedOrClaimed() {
        FsPath claimedFile = subtaskDirectory.resolve("merged-2");
        FsPath privateMerged = runDirectory.resolve("merged-3");
        registry.claim(List.of(claimedFile));
        registry.register(1, Set.of(merged, claimedFile, privateMerged));

        assertThat(registry.isOwned(merged)).isFalse();
        assertThat(registry.isOwned(privateMerged)).isFalse();
        assertThat(registry.unreferencedOwned(List.of(subtaskDirectory.resolve("torn"), privateMerged))).isEmpty();
        assertThat(registry.releaseSubsumed(1).files()).containsExactly(claimedFile);
    }

    @Test
    void rule3AfterAdoptionUnreferencedMergedFilesAreOrphansAndReferencedOnesGoWithTheirLastCheckpoint() {
        FsPath unreferenced = runDirectory.resolve("merged-9");
        FsPath anotherJobs = FsPath.parse("/ckpt/other-job/shared/subtask-0-2-v1/merged-1");
        registry.register(3, Set.of(merged));
        registry.register(4, Set.of(merged));

        registry.adopt(List.of(merged, unreferenced, anotherJobs));

        assertThat(registry.unreferencedOwned(List.of(merged, unreferenced, anotherJobs)))
                .containsExactly(unreferenced);
        assertThat(registry.releaseSubsumed(3).files()).isEmpty();
        assertThat(registry.releaseSubsumed(4).files()).containsExactly(merged);
        assertThat(registry.isOwned(merged)).as("gone, so no longer adopted").isFalse();
        assertThat(registry.isOwned(anotherJobs)).isFalse();
    }

    @Test
    void rule5ARebuildRestoresTheDirectoryNamesOfTheMetadata() {
        registry.rebuild(List.of(new CompletedCheckpoint("j", 3, 0, 0, 8, CheckpointKind.CHECKPOINT, Map.of(),
                directories.metadata(3), Set.of(subtaskDirectory, runDirectory))));

        assertThat(registry.isNamed(subtaskDirectory)).isTrue();
        assertThat(registry.isNamed(runDirectory)).isTrue();
        assertThat(registry.releaseSubsumed(3).directories()).containsExactly(subtaskDirectory, runDirectory);
    }

    private CompletedCheckpoint checkpointWith(long id, FsPath sharedFile, FsPath privateFile) {
        IncrementalKeyedStateHandle handle = new IncrementalKeyedStateHandle("b", id, new KeyGroupRange(0, 7),
                List.of(new SharedFile("000007.sst", new FileSegmentHandle(sharedFile, 0, 10), true)),
                List.of(new PrivateFile("MANIFEST", new FileSegmentHandle(privateFile, 0, 5))),
                new io.duraflow.state.InlineStateHandle(new byte[] {1}));
        return new CompletedCheckpoint("j", id, 0, 0, 8, CheckpointKind.CHECKPOINT, Map.of("sum",
                new OperatorCheckpointState("sum", 1, null, Map.of(0, new OperatorSubtaskState(List.of(handle),
                        List.of())))), directories.metadata(id));
    }
}
