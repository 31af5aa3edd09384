package io.duraflow.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class FileSystemJobResultStoreTest extends JobResultStoreContractTest {
    @TempDir
    Path tempDir;

    private Path directory;
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger storeLogger = (Logger) LoggerFactory.getLogger(FileSystemJobResultStore.class);

    @BeforeEach
    void setUp() {
        directory = tempDir.resolve("ha/default/job-result-store");
        log.start();
        storeLogger.addAppender(log);
    }

    @AfterEach
    void tearDown() {
        storeLogger.detachAppender(log);
    }

    @Override
    protected JobResultStore createStore(boolean deleteOnCommit, Duration cleanTtlOrNull, Clock clock) {
        return new FileSystemJobResultStore(LocalFileSystem.INSTANCE, FsPath.of(directory), deleteOnCommit, cleanTtlOrNull, clock);
    }

    private Path dirtyFile(String jobId) {
        return directory.resolve(jobId + ".dirty.json");
    }

    private Path cleanFile(String jobId) {
        return directory.resolve(jobId + ".clean.json");
    }

    private List<String> fileNames() throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void directoryIsCreatedByTheFirstWrite() throws Exception {
        JobResultStore store = createStore();

        assertThat(store.hasJobResultEntry("j1")).isFalse();
        assertThat(store.getDirtyResults()).isEmpty();
        assertThat(store.expireCleanResults()).isEmpty();
        assertThat(tempDir.resolve("ha")).doesNotExist();

        store.createDirtyResult(TestEntries.finished("j1"));
        assertThat(fileNames()).containsExactly("j1.dirty.json");
    }

    @Test
    void markingCleanReplacesTheDirtyFileWithAByteIdenticalCleanFile() throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.everyField("j1"));
        byte[] dirtyBytes = Files.readAllBytes(dirtyFile("j1"));

        store.markResultAsClean("j1");
        assertThat(fileNames()).containsExactly("j1.clean.json");
        assertThat(Files.readAllBytes(cleanFile("j1"))).isEqualTo(dirtyBytes);

        store.markResultAsClean("j1");
        assertThat(fileNames()).containsExactly("j1.clean.json");
        assertThat(Files.readAllBytes(cleanFile("j1"))).isEqualTo(dirtyBytes);
    }

    @Test
    void fileIsTheDocumentedEnvelopeWithACrc32cOfTheCanonicalResult() throws Exception {
        createStore().createDirtyResult(TestEntries.everyField("j1"));

        ObjectMapper mapper = new ObjectMapper();
        JsonNode root = mapper.readTree(dirtyFile("j1").toFile());
        assertThat(root.get("format").asText()).isEqualTo("duraflow-job-result");
        assertThat(root.get("version").asInt()).isEqualTo(1);
        assertThat(root.get("result").get("jobId").asText()).isEqualTo("j1");
        assertThat(root.get("result").get("state").asText()).isEqualTo("FAILED");
        assertThat(root.get("result").get("collected").get(0).get("data").asText()).isEqualTo("A2FiYwJkZQ==");

        // Canonical bytes as the format defines them: compact, keys sorted at every depth.
        CRC32C crc = new CRC32C();
        crc.update(mapper.writeValueAsBytes(sortedCopy(mapper, root.get("result"))));
        assertThat(root.get("checksum").asText()).isEqualTo(String.format("%08x", crc.getValue()));
    }

    @Test
    void aFileRewrittenWithOtherWhitespaceAndKeyOrderStillReads() throws Exception {
        createStore().createDirtyResult(TestEntries.everyField("j1"));
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = (ObjectNode) mapper.readTree(dirtyFile("j1").toFile());
        ObjectNode reordered = mapper.createObjectNode();
        reordered.set("result", root.get("result"));
        reordered.set("checksum", root.get("checksum"));
        reordered.set("version", root.get("version"));
        reordered.set("format", root.get("format"));
        Files.write(dirtyFile("j1"), mapper.writeValueAsBytes(reordered));

        assertThat(createStore().getResult("j1")).contains(TestEntries.everyField("j1"));
    }

    private static JsonNode sortedCopy(ObjectMapper mapper, JsonNode node) {
        if (node.isObject()) {
            ObjectNode sorted = mapper.createObjectNode();
            List<String> names = new ArrayList<>();
            node.fieldNames().forEachRemaining(names::add);
            names.stream().sorted().forEach(name -> sorted.set(name, sortedCopy(mapper, node.get(name))));
            return sorted;
        }
        if (node.isArray()) {
            var array = mapper.createArrayNode();
            node.forEach(element -> array.add(sortedCopy(mapper, element)));
            return array;
        }
        return node;
    }

    // --- size ----------------------------------------------------------------------------------

    /**
     * Collected records are stored base64 in the JSON, and a job may collect up to
     * collect.max-bytes (64 MiB by default): far beyond the 20 MB string limit of Jackson's default
     * parser. A result whose base64 is 1 MiB over that limit is written, and read back by another
     * store on the same directory, as the next leader reads it after a failover. (Marking clean
     * copies the bytes as they are, which smaller entries show.)
     */
    @Test
    void aResultBeyondTheParsersDefaultStringLimitIsReadBackByAnotherStore() throws Exception {
        int limit = StreamReadConstraints.defaults().getMaxStringLength();
        byte[] data = new byte[(limit + (1 << 20)) / 4 * 3];
        new Random(42).nextBytes(data);
        JobResultEntry large = new JobResultEntry("large", "Large", "com.example.Large", JobOutcome.FINISHED,
                TestEntries.SUBMITTED_AT_MS, TestEntries.ENDED_AT_MS, "", 0, Map.of(), Map.of(), List.of(),
                List.of(new CollectedData("out", 0, 1, data)));
        createStore().createDirtyResult(large);
        assertThatThrownBy(() -> new ObjectMapper().readTree(dirtyFile("large").toFile()))
                .as("a parser with the default limits rejects the file").isInstanceOf(StreamConstraintsException.class);

        assertThat(createStore().getResult("large")).contains(large);
        assertThat(log.list).as("warnings").noneMatch(e -> e.getLevel() == Level.WARN);
    }

    // --- corrupt files -------------------------------------------------------------------------

    private static byte[] truncated(byte[] bytes) {
        return Arrays.copyOf(bytes, bytes.length / 2);
    }

    private static byte[] badChecksum(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        return text.replace("com.example.WordCount", "com.example.WordCounT").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] notJson(byte[] bytes) {
        return "this is not { json".getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] version2(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        return text.replace("\"version\" : 1", "\"version\" : 2").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] empty(byte[] bytes) {
        return new byte[0];
    }

    /** A dirty file for {@code jobId}, damaged by {@code damage}; returns its path. */
    private Path damagedDirtyFile(String jobId, Function<byte[], byte[]> damage) throws Exception {
        createStore().createDirtyResult(TestEntries.finished(jobId));
        Path file = dirtyFile(jobId);
        byte[] damaged = damage.apply(Files.readAllBytes(file));
        assertThat(damaged).isNotEqualTo(Files.readAllBytes(file));
        Files.write(file, damaged);
        return file;
    }

    private void assertCorruptDirtyEntry(Function<byte[], byte[]> damage, String reason) throws Exception {
        Path file = damagedDirtyFile("j1", damage);
        JobResultStore store = createStore();
        String prefix = "corrupt job result file " + file + ": ";

        assertThat(store.hasJobResultEntry("j1")).isTrue();
        assertThat(store.hasDirtyJobResultEntry("j1")).isTrue();
        JobResultEntry result = store.getResult("j1").orElseThrow();
        assertThat(result.jobId()).isEqualTo("j1");
        assertThat(result.state()).isEqualTo(JobOutcome.UNKNOWN);
        assertThat(result.failure()).startsWith(prefix).contains(reason);
        assertThat(store.getDirtyResults()).containsExactly(result);
        assertThatThrownBy(() -> store.createDirtyResult(TestEntries.finished("j1")))
                .isInstanceOf(JobResultEntryExistsException.class);
        assertThat(log.list).filteredOn(e -> e.getLevel() == Level.WARN)
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.getFormattedMessage()).contains(file.toString()).contains(reason));
    }

    @Test
    void truncatedFileIsAnUnknownResult() throws Exception {
        assertCorruptDirtyEntry(FileSystemJobResultStoreTest::truncated, "not valid JSON (truncated?)");
    }

    @Test
    void checksumMismatchIsAnUnknownResult() throws Exception {
        assertCorruptDirtyEntry(FileSystemJobResultStoreTest::badChecksum, "checksum mismatch");
    }

    @Test
    void textThatIsNotJsonIsAnUnknownResult() throws Exception {
        assertCorruptDirtyEntry(FileSystemJobResultStoreTest::notJson, "not valid JSON");
    }

    @Test
    void unknownVersionIsAnUnknownResult() throws Exception {
        assertCorruptDirtyEntry(FileSystemJobResultStoreTest::version2,
                "unsupported format version 2; this version of Duraflow reads version 1");
    }

    @Test
    void emptyFileIsAnUnknownResult() throws Exception {
        assertCorruptDirtyEntry(FileSystemJobResultStoreTest::empty, "empty file");
    }

    @Test
    void validEnvelopeWithAMissingFieldIsAnUnknownResult() throws Exception {
        assertCorruptDirtyEntry(bytes -> envelope(TestEntries.finished("j1"), result -> result.remove("endedAtMs")),
                "result.endedAtMs: missing");
    }

    @Test
    void resultOfAnotherJobIsAnUnknownResult() throws Exception {
        assertCorruptDirtyEntry(bytes -> envelope(TestEntries.finished("j2"), result -> { }),
                "it holds the result of job j2");
    }

    @Test
    void anEntryWrittenBeforeTaskAttemptsWereRecordedStillReads() throws Exception {
        JobResultEntry entry = TestEntries.everyField("j1");
        Files.createDirectories(directory);
        Files.write(dirtyFile("j1"), envelope(entry, result -> result.withArray("vertices")
                .forEach(vertex -> ((ObjectNode) vertex).remove("taskAttempts"))));

        JobResultEntry read = createStore().getResult("j1").orElseThrow();
        assertThat(read.state()).isEqualTo(entry.state());
        assertThat(read.vertices()).allSatisfy(v -> assertThat(v.taskAttempts()).isEmpty());
        assertThat(entry.vertices().get(0).taskAttempts()).as("the test removed something").isNotEmpty();
    }

    /** A well-formed file (correct checksum) whose result was changed by {@code edit}. */
    private static byte[] envelope(JobResultEntry entry, java.util.function.Consumer<ObjectNode> edit) {
        ObjectNode result = JobResultJson.toJson(entry);
        edit.accept(result);
        return StoreFileFormat.JOB_RESULT.encode(result);
    }

    @Test
    void corruptDirtyEntryCanStillBeMarkedCleanAndStaysUnknown() throws Exception {
        Path file = damagedDirtyFile("j1", FileSystemJobResultStoreTest::badChecksum);
        JobResultStore store = createStore();

        store.markResultAsClean("j1");

        assertThat(fileNames()).containsExactly("j1.clean.json");
        JobResultEntry result = store.getResult("j1").orElseThrow();
        assertThat(result.state()).isEqualTo(JobOutcome.UNKNOWN);
        assertThat(result.failure()).startsWith("corrupt job result file " + cleanFile("j1") + ": checksum mismatch");
        assertThat(file).doesNotExist();
    }

    @Test
    void corruptCleanEntryIsUnknownAndNeverExpires() throws Exception {
        JobResultStore store = createStore(false, Duration.ofMillis(1), clock);
        store.createDirtyResult(TestEntries.finished("j1"));
        store.markResultAsClean("j1");
        Files.write(cleanFile("j1"), truncated(Files.readAllBytes(cleanFile("j1"))));
        clock.advance(Duration.ofDays(365));

        assertThat(store.hasCleanJobResultEntry("j1")).isTrue();
        assertThat(store.getResult("j1").orElseThrow().state()).isEqualTo(JobOutcome.UNKNOWN);
        assertThat(store.getDirtyResults()).isEmpty();
        assertThat(store.expireCleanResults()).isEmpty();
        assertThat(cleanFile("j1")).exists();
    }

    @Test
    void corruptCleanFileFallsBackToAnIntactDirtyFileAndKeepsIt() throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.everyField("j1"));
        Files.write(cleanFile("j1"), notJson(new byte[0]));

        assertThat(store.hasDirtyJobResultEntry("j1")).isFalse();
        assertThat(store.getResult("j1")).contains(TestEntries.everyField("j1"));
        assertThat(store.getDirtyResults()).isEmpty();
        store.markResultAsClean("j1");
        assertThat(dirtyFile("j1")).as("the only readable copy").exists();
    }

    // --- crash between writing the clean file and deleting the dirty one -----------------------

    private JobResultStore storeWithCleanAndStaleDirtyFile(String jobId) throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.finished(jobId));
        Files.copy(dirtyFile(jobId), cleanFile(jobId));
        return store;
    }

    @Test
    void bothDirtyAndCleanFilesMeanClean() throws Exception {
        JobResultStore store = storeWithCleanAndStaleDirtyFile("j1");

        assertThat(store.hasJobResultEntry("j1")).isTrue();
        assertThat(store.hasDirtyJobResultEntry("j1")).isFalse();
        assertThat(store.hasCleanJobResultEntry("j1")).isTrue();
        assertThat(store.getResult("j1")).contains(TestEntries.finished("j1"));
        assertThatThrownBy(() -> store.createDirtyResult(TestEntries.finished("j1")))
                .isInstanceOfSatisfying(JobResultEntryExistsException.class, e -> assertThat(e.isClean()).isTrue());
    }

    @Test
    void scanDeletesTheStaleDirtyFile() throws Exception {
        JobResultStore store = storeWithCleanAndStaleDirtyFile("j1");

        assertThat(store.getDirtyResults()).isEmpty();

        assertThat(fileNames()).containsExactly("j1.clean.json");
    }

    @Test
    void markingCleanDeletesTheStaleDirtyFile() throws Exception {
        JobResultStore store = storeWithCleanAndStaleDirtyFile("j1");

        store.markResultAsClean("j1");

        assertThat(fileNames()).containsExactly("j1.clean.json");
    }

    @Test
    void tempAndForeignFilesAreIgnored() throws Exception {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve(".j1.clean.json.0b7e.tmp"), "{\"partial");
        Files.writeString(directory.resolve("README.txt"), "not a result");
        Files.writeString(directory.resolve("j2.json"), "{}");
        JobResultStore store = createStore();

        assertThat(store.hasJobResultEntry("j1")).isFalse();
        assertThat(store.getDirtyResults()).isEmpty();
        store.createDirtyResult(TestEntries.finished("j1"));
        store.markResultAsClean("j1");
        assertThat(fileNames()).containsExactly(".j1.clean.json.0b7e.tmp", "README.txt", "j1.clean.json", "j2.json");
    }

    @Test
    void deleteOnCommitDeletesTheFile() throws Exception {
        JobResultStore store = createStore(true, null, clock);
        store.createDirtyResult(TestEntries.finished("j1"));

        store.markResultAsClean("j1");

        assertThat(fileNames()).isEmpty();
        store.createDirtyResult(TestEntries.finished("j1"));
        assertThat(store.hasDirtyJobResultEntry("j1")).as("the job could run again").isTrue();
    }

    @Test
    void expiryDeletesTheFiles() throws Exception {
        JobResultStore store = createStore(false, Duration.ofMinutes(1), clock);
        store.createDirtyResult(TestEntries.finished("j1"));
        store.markResultAsClean("j1");

        assertThat(store.expireCleanResults()).hasSize(1);

        assertThat(fileNames()).isEmpty();
    }

    @Test
    void ioErrorsAreThrownNotTreatedAsAbsent() throws Exception {
        Files.createDirectories(directory.getParent());
        Files.writeString(directory, "a file where the directory should be");
        JobResultStore store = createStore();

        assertThatThrownBy(() -> store.createDirtyResult(TestEntries.finished("j1")))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(JobResultEntryExistsException.class);
        assertThatThrownBy(() -> store.hasJobResultEntry("j1")).isInstanceOf(IOException.class);
        assertThatThrownBy(store::getDirtyResults).isInstanceOf(IOException.class);
    }

    // --- concurrency ---------------------------------------------------------------------------

    @Test
    void concurrentCreatesOnOneStoreLetExactlyOneWin() throws Exception {
        JobResultStore store = createStore();
        assertExactlyOneWins(i -> store, 8);
    }

    @Test
    void concurrentCreatesFromSeveralStoresOnOneDirectoryLetExactlyOneWin() throws Exception {
        assertExactlyOneWins(i -> createStore(), 8);
    }

    private interface StoreForThread {
        JobResultStore get(int thread) throws Exception;
    }

    private void assertExactlyOneWins(StoreForThread stores, int threads) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 200; round++) {
                String jobId = "job-" + round;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Boolean>> attempts = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    JobResultStore store = stores.get(t);
                    JobResultEntry entry = TestEntries.ended(jobId, t);
                    Callable<Boolean> attempt = () -> {
                        start.await();
                        try {
                            store.createDirtyResult(entry);
                            return true;
                        } catch (JobResultEntryExistsException e) {
                            return false;
                        }
                    };
                    attempts.add(executor.submit(attempt));
                }
                start.countDown();
                int wins = 0;
                for (Future<Boolean> attempt : attempts) {
                    wins += attempt.get(30, TimeUnit.SECONDS) ? 1 : 0;
                }
                assertThat(wins).as("round %d", round).isEqualTo(1);
                JobResultEntry stored = createStore().getResult(jobId).orElseThrow();
                assertThat(stored.state()).as("never a half-written file").isEqualTo(JobOutcome.FINISHED);
            }
        } finally {
            executor.shutdownNow();
        }
    }
}
