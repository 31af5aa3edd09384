package io.duraflow.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemJobGraphStoreTest extends JobGraphStoreContractTest {
    @TempDir
    Path tempDir;

    private Path directory() {
        return tempDir.resolve("ha/default/job-graphs");
    }

    @Override
    protected JobGraphStore createStore() {
        return new FileSystemJobGraphStore(LocalFileSystem.INSTANCE, FsPath.of(directory()));
    }

    private Path file(String jobId) {
        return directory().resolve(jobId + ".json");
    }

    @Test
    void directoryIsCreatedByTheFirstPut() throws Exception {
        JobGraphStore store = createStore();
        store.remove("j1");
        assertThat(store.jobIds()).isEmpty();
        assertThat(tempDir.resolve("ha")).doesNotExist();

        store.put(TestEntries.submitted("j1"));

        try (Stream<Path> files = Files.list(directory())) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("j1.json");
        }
    }

    @Test
    void fileIsAVersionedEnvelope() throws Exception {
        createStore().put(TestEntries.submitted("j1"));

        JsonNode root = new ObjectMapper().readTree(file("j1").toFile());
        assertThat(root.get("format").asText()).isEqualTo("duraflow-job-graph");
        assertThat(root.get("version").asInt()).isEqualTo(1);
        assertThat(root.get("checksum").asText()).matches("[0-9a-f]{8}");
        assertThat(root.get("job").get("config").get("parallelism.default").asText()).isEqualTo("4");
    }

    @Test
    void storedJobsSurviveANewStoreInstance() throws Exception {
        createStore().put(TestEntries.submitted("j1"));

        assertThat(createStore().get("j1")).contains(TestEntries.submitted("j1"));
    }

    @Test
    void tempAndForeignFilesAreNotJobs() throws Exception {
        Files.createDirectories(directory());
        Files.writeString(directory().resolve(".j1.json.4f2a.tmp"), "{");
        Files.writeString(directory().resolve("notes.txt"), "x");

        assertThat(createStore().jobIds()).isEmpty();
    }

    private void assertCorrupt(byte[] contents, String reason) throws Exception {
        JobGraphStore store = createStore();
        store.put(TestEntries.submitted("j1"));
        Files.write(file("j1"), contents);

        assertThatThrownBy(() -> store.get("j1"))
                .isInstanceOfSatisfying(CorruptStoreFileException.class, e -> {
                    assertThat(e.file()).isEqualTo(FsPath.of(file("j1")));
                    assertThat(e.reason()).contains(reason);
                })
                .hasMessageStartingWith("corrupt job graph file " + file("j1") + ": ")
                .hasMessageContaining(reason);
        assertThat(store.jobIds()).as("still listed, so recovery notices it").containsExactly("j1");
    }

    private byte[] validFile() throws Exception {
        createStore().put(TestEntries.submitted("j1"));
        return Files.readAllBytes(file("j1"));
    }

    @Test
    void truncatedFileIsCorrupt() throws Exception {
        byte[] valid = validFile();
        assertCorrupt(Arrays.copyOf(valid, valid.length - 10), "not valid JSON (truncated?)");
    }

    @Test
    void checksumMismatchIsCorrupt() throws Exception {
        String valid = new String(validFile(), StandardCharsets.UTF_8);
        assertCorrupt(valid.replace("\"parallelism\" : 3", "\"parallelism\" : 4").getBytes(StandardCharsets.UTF_8),
                "checksum mismatch");
    }

    @Test
    void textThatIsNotJsonIsCorrupt() throws Exception {
        assertCorrupt("\u0000\u0001binary".getBytes(StandardCharsets.UTF_8), "not valid JSON");
    }

    @Test
    void unknownVersionIsCorrupt() throws Exception {
        String valid = new String(validFile(), StandardCharsets.UTF_8);
        assertCorrupt(valid.replace("\"version\" : 1", "\"version\" : 7").getBytes(StandardCharsets.UTF_8),
                "unsupported format version 7");
    }

    @Test
    void jobResultFileIsNotAJobGraph() throws Exception {
        assertCorrupt(StoreFileFormat.JOB_RESULT.encode(JobResultJson.toJson(TestEntries.finished("j1"))),
                "format is \"duraflow-job-result\", expected \"duraflow-job-graph\"");
    }

    @Test
    void anotherJobsFileIsCorrupt() throws Exception {
        assertCorrupt(StoreFileFormat.JOB_GRAPH.encode(SubmittedJobJson.toJson(TestEntries.submitted("j2"))),
                "it holds job j2");
    }

    @Test
    void duplicateKeysAreCorrupt() throws Exception {
        String valid = new String(validFile(), StandardCharsets.UTF_8);
        assertCorrupt(valid.replace("\"version\" : 1,", "\"version\" : 1, \"version\" : 1,")
                .getBytes(StandardCharsets.UTF_8), "Duplicate field 'version'");
    }
}
