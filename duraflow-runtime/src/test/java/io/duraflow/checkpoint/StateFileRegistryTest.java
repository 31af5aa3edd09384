package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StateFileRegistryTest {
    private final CheckpointDirectories directories = CheckpointDirectories.of(FsPath.parse("/ckpt"), "j");
    private final StateFileRegistry registry = new StateFileRegistry(directories.taskOwned());
    private final FsPath shared = directories.shared().resolve("sst-1");
    private final FsPath own1 = directories.checkpoint(1).resolve("state");
    private final FsPath own2 = directories.checkpoint(2).resolve("state");

    @Test
    void rules1And2AFileUsedByTwoCheckpointsGoesOnlyWithTheLast() {
        registry.register(1, Set.of(shared, own1));
        registry.register(2, Set.of(shared, own2));

        assertThat(registry.release(1)).containsExactly(own1);
        assertThat(registry.isReferenced(shared)).isTrue();
        assertThat(registry.release(2)).containsExactly(own2, shared);
        assertThat(registry.referencedFiles()).isZero();
        assertThat(registry.release(2)).isEmpty();
    }

    @Test
    void rule3TaskOwnedFilesAreNeverTheJobManagersToDelete() {
        FsPath merged = directories.taskOwned().resolve("tm-1/merged-7");
        registry.register(1, Set.of(merged, own1));

        assertThat(registry.release(1)).containsExactly(own1);
        assertThat(registry.isReferenced(merged)).isFalse();
    }
}
