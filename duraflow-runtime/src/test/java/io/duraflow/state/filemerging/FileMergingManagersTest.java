package io.duraflow.state.filemerging;

import static io.duraflow.state.filemerging.MergingFixture.bytes;
import static io.duraflow.state.filemerging.MergingFixture.fileOf;
import static io.duraflow.state.filemerging.MergingFixture.within;
import static io.duraflow.state.filemerging.MergingFixture.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One manager per run of a job on a TaskManager, shared by the run's tasks and closed by the last of them. */
class FileMergingManagersTest {
    @TempDir
    Path tmp;

    private final SubtaskKey first = new SubtaskKey(0, 0, 2);
    private final SubtaskKey second = new SubtaskKey(0, 1, 2);

    @Test
    void theTasksOfARunShareOneManagerWhichTheLastOfThemCloses() throws IOException {
        MergingFixture fixture = new MergingFixture(tmp);
        FileMergingManagers managers = new FileMergingManagers("tm", Runnable::run);
        FileMergingManagers.Lease a = managers.acquire("job", "run1", first, fixture.fs, fixture.directories, within());
        FileMergingManagers.Lease b = managers.acquire("job", "run1", second, fixture.fs, fixture.directories,
                within());
        assertThat(b.manager()).isSameAs(a.manager());
        assertThat(b.subtask()).isEqualTo(second);
        StreamStateHandle handle = write(a.manager(), first, 1, CheckpointedStateScope.EXCLUSIVE, bytes(100, 1));

        a.close();
        a.close(); // idempotent: does not count twice
        assertThat(managers.openManagers()).isEqualTo(1);
        assertThat(fixture.exists(fileOf(handle))).isTrue();

        b.close();
        assertThat(managers.openManagers()).isZero();
        assertThat(fixture.exists(fileOf(handle))).as("never acknowledged").isFalse();
        assertThatThrownBy(() -> write(b.manager(), second, 2, CheckpointedStateScope.EXCLUSIVE, bytes(100, 2)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aNewRunGetsANewManagerWithItsOwnPrivateDirectory() {
        MergingFixture fixture = new MergingFixture(tmp);
        FileMergingManagers managers = new FileMergingManagers("tm", Runnable::run);
        try (FileMergingManagers.Lease old = managers.acquire("job", "run1", first, fixture.fs, fixture.directories,
                within());
                FileMergingManagers.Lease restored = managers.acquire("job", "run2", first, fixture.fs,
                        fixture.directories, within());
                FileMergingManagers.Lease otherJob = managers.acquire("job-2", "run1", first, fixture.fs,
                        fixture.directories, within())) {
            assertThat(restored.manager()).isNotSameAs(old.manager());
            assertThat(otherJob.manager()).isNotSameAs(old.manager());
            assertThat(restored.manager().privateDirectory()).isNotEqualTo(old.manager().privateDirectory());
            assertThat(managers.openManagers()).isEqualTo(3);
        }
        assertThat(managers.openManagers()).isZero();
    }
}
