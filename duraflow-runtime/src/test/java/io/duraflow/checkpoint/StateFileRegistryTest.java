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
