package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A class-data archive is used only once its recorder exited by itself: one cut short by a
 * SIGKILL while it was written was kept before, and every later process silently refused it.
 */
class LocalClusterCdsTest {
    @TempDir
    Path dir;

    private Path note(Path recording, Path archive) throws Exception {
        Path note = dir.resolve("cds-recordings").resolve("taskmanager-1");
        Files.createDirectories(note.getParent());
        Files.writeString(note, recording + "\n" + archive);
        return note;
    }

    @Test
    void theArchiveOfARecorderThatExitedByItselfIsMovedIntoPlace() throws Exception {
        Path recording = Files.write(dir.resolve("tm.jsa.taskmanager-1.tmp"), new byte[] {1, 2, 3});
        Path archive = dir.resolve("tm.jsa");
        LocalCluster.finishRecording(note(recording, archive));

        assertThat(archive).hasBinaryContent(new byte[] {1, 2, 3});
        assertThat(recording).doesNotExist();
        assertThat(dir.resolve("cds-recordings").resolve("taskmanager-1")).doesNotExist();
    }

    @Test
    void theArchiveOfAKilledRecorderIsNeverUsed() throws Exception {
        Path recording = Files.write(dir.resolve("tm.jsa.taskmanager-1.tmp"), new byte[] {1, 2});
        Path archive = dir.resolve("tm.jsa");
        Path note = note(recording, archive);

        LocalCluster.discardRecording(note);
        LocalCluster.finishRecording(note);

        assertThat(archive).doesNotExist();
        assertThat(recording).doesNotExist();
        assertThat(note).doesNotExist();
    }

    @Test
    void anExistingArchiveIsNotReplacedAndAnEmptyRecordingIsDropped() throws Exception {
        Path archive = Files.write(dir.resolve("tm.jsa"), new byte[] {9});
        Path recording = Files.write(dir.resolve("tm.jsa.taskmanager-1.tmp"), new byte[0]);
        LocalCluster.finishRecording(note(recording, archive));

        assertThat(archive).hasBinaryContent(new byte[] {9});
        assertThat(recording).doesNotExist();
    }
}
