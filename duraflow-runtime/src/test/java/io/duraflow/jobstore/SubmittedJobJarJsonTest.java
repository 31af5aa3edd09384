package io.duraflow.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The optional "jar" of a job graph file's payload. */
class SubmittedJobJarJsonTest {
    private static final String SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private static final JobJarRef JAR = new JobJarRef(SHA256, "app \u00fcber.jar", 48_213);

    @TempDir
    Path tempDir;

    private FileSystemJobGraphStore store() {
        return new FileSystemJobGraphStore(LocalFileSystem.INSTANCE, FsPath.of(directory()));
    }

    private Path directory() {
        return tempDir.resolve("ha/default/job-graphs");
    }

    private Path file(String jobId) {
        return directory().resolve(jobId + ".json");
    }

    private static SubmittedJob withJar(String jobId, JobJarRef jar, long submittedAtMs) {
        return new SubmittedJob(jobId, "com.example.t.MyJob", Map.of("n", "10"), Map.of("parallelism.default", "2"),
                2, submittedAtMs, null, jar);
    }

    private JsonNode payload(String jobId) throws Exception {
        return new ObjectMapper().readTree(file(jobId).toFile()).get("job");
    }

    @Test
    void aJobsJarSurvivesTheStore() throws Exception {
        SubmittedJob job = withJar("j1", JAR, TestEntries.SUBMITTED_AT_MS);

        store().put(job);

        SubmittedJob read = store().get("j1").orElseThrow();
        assertThat(read).isEqualTo(job);
        assertThat(read.jar()).isEqualTo(JAR);
        JsonNode jar = payload("j1").get("jar");
        assertThat(jar.get("sha256").asText()).isEqualTo(SHA256);
        assertThat(jar.get("fileName").asText()).isEqualTo("app \u00fcber.jar");
        assertThat(jar.get("size").isIntegralNumber()).isTrue();
        assertThat(jar.get("size").asLong()).isEqualTo(48_213);
    }

    @Test
    void aJobWithoutAJarHasNoJarField() throws Exception {
        SubmittedJob job = TestEntries.submitted("j1");

        store().put(job);

        assertThat(payload("j1").has("jar")).isFalse();
        assertThat(store().get("j1").orElseThrow().jar()).isNull();
        assertThat(store().get("j1")).contains(job);
    }

    @Test
    void aJarAndRestoreSettingsAreStoredTogether() throws Exception {
        SubmittedJob job = new SubmittedJob("j1", "com.example.t.MyJob", Map.of(), Map.of(), 0, 7,
                new RestoreSettings("/savepoints/savepoint-j0-7", RestoreSettings.Mode.NO_CLAIM, false), JAR);

        store().put(job);

        assertThat(store().get("j1")).contains(job);
    }

    @Test
    void theSameSubmissionHasTheSameJar() {
        SubmittedJob job = withJar("j1", JAR, 1);
        JobJarRef otherHash = new JobJarRef(SHA256.replace('9', 'a'), JAR.fileName(), JAR.size());

        assertThat(job.sameSubmissionAs(withJar("j1", JAR, 2))).as("only the time differs").isTrue();
        assertThat(job.sameSubmissionAs(withJar("j1", otherHash, 1))).isFalse();
        assertThat(job.sameSubmissionAs(withJar("j1", new JobJarRef(SHA256, "other.jar", JAR.size()), 1))).isFalse();
        assertThat(job.sameSubmissionAs(withJar("j1", new JobJarRef(SHA256, JAR.fileName(), 1), 1))).isFalse();
        assertThat(job.sameSubmissionAs(withJar("j1", null, 1))).isFalse();
        assertThat(withJar("j1", null, 1).sameSubmissionAs(job)).isFalse();
        assertThat(withJar("j1", null, 1).sameSubmissionAs(withJar("j1", null, 2))).isTrue();
    }

    /** Stores j1 with a jar, then replaces its file by one whose payload {@code edit} changed (with a valid checksum). */
    private void assertCorrupt(Consumer<ObjectNode> edit, String reason) throws Exception {
        FileSystemJobGraphStore store = store();
        store.put(withJar("j1", JAR, 1));
        ObjectNode payload = SubmittedJobJson.toJson(withJar("j1", JAR, 1));
        edit.accept(payload);
        Files.write(file("j1"), StoreFileFormat.JOB_GRAPH.encode(payload));

        assertThatThrownBy(() -> store.get("j1"))
                .isInstanceOfSatisfying(CorruptStoreFileException.class, e -> {
                    assertThat(e.file()).isEqualTo(FsPath.of(file("j1")));
                    assertThat(e.reason()).contains(reason);
                })
                .hasMessageStartingWith("corrupt job graph file " + file("j1") + ": ")
                .hasMessageContaining(reason);
        assertThat(store.jobIds()).containsExactly("j1");
    }

    private static ObjectNode jar(ObjectNode payload) {
        return (ObjectNode) payload.get("jar");
    }

    @Test
    void anInvalidSha256IsCorrupt() throws Exception {
        assertCorrupt(p -> jar(p).put("sha256", "not-a-hash"),
                "a jar's SHA-256 must be 64 lower-case hex digits, got 'not-a-hash'");
    }

    @Test
    void anUpperCaseSha256IsCorrupt() throws Exception {
        assertCorrupt(p -> jar(p).put("sha256", SHA256.toUpperCase()), "got '" + SHA256.toUpperCase() + "'");
    }

    @Test
    void aSha256ThatIsNotAStringIsCorrupt() throws Exception {
        assertCorrupt(p -> jar(p).put("sha256", 42), "job.jar.sha256: expected a string, found 42");
    }

    @Test
    void aMissingFileNameIsCorrupt() throws Exception {
        assertCorrupt(p -> jar(p).remove("fileName"), "job.jar.fileName: missing");
    }

    @Test
    void aSizeThatIsNotANumberIsCorrupt() throws Exception {
        assertCorrupt(p -> jar(p).put("size", "48213"), "job.jar.size: expected a 64-bit integer, found \"48213\"");
    }

    @Test
    void aNegativeSizeIsCorrupt() throws Exception {
        assertCorrupt(p -> jar(p).put("size", -1), "size -1 must not be negative");
    }

    @Test
    void aJarThatIsNotAnObjectIsCorrupt() throws Exception {
        assertCorrupt(p -> p.put("jar", "app.jar"), "job.jar: expected an object, found \"app.jar\"");
    }
}
