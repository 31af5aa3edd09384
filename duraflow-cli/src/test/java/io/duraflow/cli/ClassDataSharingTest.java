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
class ClassDataSharingTest {
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
        ClassDataSharing.finishRecording(note(recording, archive));

        assertThat(archive).hasBinaryContent(new byte[] {1, 2, 3});
        assertThat(recording).doesNotExist();
        assertThat(dir.resolve("cds-recordings").resolve("taskmanager-1")).doesNotExist();
    }

    @Test
    void aClassPathOfJarsGetsAnArchiveNextToItsDirectoryButOneWithADirectoryGetsNone() throws Exception {
        Path lib = Files.createDirectories(dir.resolve("target").resolve("lib"));
        Path api = Files.write(lib.resolve("api.jar"), new byte[] {1});
        Path runtime = Files.write(lib.resolve("runtime.jar"), new byte[] {2});
        Path classes = Files.createDirectories(dir.resolve("target").resolve("classes"));
        String jars = api + java.io.File.pathSeparator + runtime;

        Path archive = ClassDataSharing.archivePath("taskmanager", jars);
        assertThat(archive.getParent()).isEqualTo(dir.resolve("target"));
        assertThat(archive.getFileName().toString()).startsWith("duraflow-taskmanager-").endsWith(".jsa");
        assertThat(ClassDataSharing.archivePath("taskmanager", jars + java.io.File.pathSeparator + classes)).isNull();
        assertThat(ClassDataSharing.archivePath("jobmanager", classes + java.io.File.pathSeparator + jars)).isNull();
    }

    @Test
    void theArchiveOfAKilledRecorderIsNeverUsed() throws Exception {
        Path recording = Files.write(dir.resolve("tm.jsa.taskmanager-1.tmp"), new byte[] {1, 2});
        Path archive = dir.resolve("tm.jsa");
        Path note = note(recording, archive);

        ClassDataSharing.discardRecording(note);
        ClassDataSharing.finishRecording(note);

        assertThat(archive).doesNotExist();
        assertThat(recording).doesNotExist();
        assertThat(note).doesNotExist();
    }

    @Test
    void aNewArchiveLeavesOnlyTheNewestFewOfItsRole() throws Exception {
        for (int i = 0; i < 6; i++) {
            Path old = Files.write(dir.resolve("duraflow-taskmanager-old" + i + ".jsa"), new byte[] {1});
            Files.setLastModifiedTime(old, java.nio.file.attribute.FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        Path jobManagers = Files.write(dir.resolve("duraflow-jobmanager-old0.jsa"), new byte[] {1});
        Files.setLastModifiedTime(jobManagers, java.nio.file.attribute.FileTime.fromMillis(1_000L));
        Path recording = Files.write(dir.resolve("duraflow-taskmanager-new.jsa.taskmanager-1.tmp"), new byte[] {2});
        Path archive = dir.resolve("duraflow-taskmanager-new.jsa");

        ClassDataSharing.finishRecording(note(recording, archive));

        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".jsa")))
                    .as("the new one and the three newest before it; the other role's untouched")
                    .containsExactlyInAnyOrder("duraflow-taskmanager-new.jsa", "duraflow-taskmanager-old5.jsa",
                            "duraflow-taskmanager-old4.jsa", "duraflow-taskmanager-old3.jsa",
                            "duraflow-jobmanager-old0.jsa");
        }
    }

    @Test
    void anExistingArchiveIsNotReplacedAndAnEmptyRecordingIsDropped() throws Exception {
        Path archive = Files.write(dir.resolve("tm.jsa"), new byte[] {9});
        Path recording = Files.write(dir.resolve("tm.jsa.taskmanager-1.tmp"), new byte[0]);
        ClassDataSharing.finishRecording(note(recording, archive));

        assertThat(archive).hasBinaryContent(new byte[] {9});
        assertThat(recording).doesNotExist();
    }
}
