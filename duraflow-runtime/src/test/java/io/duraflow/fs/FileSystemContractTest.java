package io.duraflow.fs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link FileSystem} must do, as docs/design/file-systems.md says. An implementation's
 * test extends this class and gives a file system and an empty directory on it for each test; the
 * Hadoop-backed implementation runs the same tests against an in-process HDFS.
 */
public abstract class FileSystemContractTest {
    protected FileSystem fs;
    protected FsPath root;

    /** The file system under test. */
    protected abstract FileSystem createFileSystem() throws IOException;

    /** An empty directory on it, private to one test. */
    protected abstract FsPath createEmptyDirectory() throws IOException;

    @BeforeEach
    void setUpFileSystem() throws IOException {
        fs = createFileSystem();
        root = createEmptyDirectory();
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        fs.deleteRecursively(root);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    private String read(FsPath file) throws IOException {
        return new String(fs.readFile(file), UTF_8);
    }

    private void write(FsPath file, String text) throws IOException {
        fs.writeFile(file, bytes(text), WriteMode.EXCLUSIVE);
    }

    // ---- create and read ------------------------------------------------------------------

    @Test
    void whatIsWrittenIsReadBackWithItsLengthAndModificationTime() throws IOException {
        FsPath file = root.resolve("a.bin");
        byte[] data = new byte[100_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        long before = System.currentTimeMillis();
        try (FsOutputStream out = fs.create(file, WriteMode.EXCLUSIVE)) {
            out.write(data, 0, 10);
            out.write(data[10]);
            out.write(data, 11, data.length - 11);
            assertThat(out.position()).isEqualTo(data.length);
            out.sync();
        }

        assertThat(fs.readFile(file)).isEqualTo(data);
        try (InputStream in = fs.open(file)) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
        FileStatus status = fs.status(file);
        assertThat(status.path()).isEqualTo(file);
        assertThat(status.isDirectory()).isFalse();
        assertThat(status.lengthBytes()).isEqualTo(data.length);
        // File systems store times at their own resolution (seconds on some); allow for that.
        assertThat(status.modificationTimeMs()).isBetween(before - 2_000, System.currentTimeMillis() + 2_000);
        assertThat(fs.exists(file)).isTrue();
    }

    /**
     * Tasks of one TaskManager write their parts of a checkpoint into the same new directory at
     * the same moment: every one of them must find it made, none may see "a file where a
     * directory should be" because another created it between two checks.
     */
    @Test
    void concurrentMkdirsOfTheSameNewDirectoryAllSucceed() throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 300; round++) {
                FsPath directory = root.resolve("round-" + round).resolve("chk-1");
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Void>> made = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    made.add(pool.submit(() -> {
                        start.await();
                        fs.mkdirs(directory);
                        return null;
                    }));
                }
                start.countDown();
                for (Future<Void> each : made) {
                    each.get(30, TimeUnit.SECONDS);
                }
                assertThat(fs.status(directory).isDirectory()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anEmptyFileExistsWithLengthZero() throws IOException {
        FsPath file = root.resolve("empty");
        fs.create(file, WriteMode.EXCLUSIVE).close();

        assertThat(fs.status(file).lengthBytes()).isZero();
        assertThat(fs.readFile(file)).isEmpty();
    }

    @Test
    void createMakesMissingParentDirectories() throws IOException {
        FsPath file = root.resolve("x/y/z/file");
        write(file, "deep");

        assertThat(read(file)).isEqualTo("deep");
        assertThat(fs.status(root.resolve("x/y")).isDirectory()).isTrue();
    }

    @Test
    void exclusiveCreateOfAnExistingFileFailsNamingItAndLeavesItAlone() throws IOException {
        FsPath file = root.resolve("taken");
        write(file, "first");

        assertThatThrownBy(() -> fs.create(file, WriteMode.EXCLUSIVE))
                .isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> fs.writeFile(file, bytes("second"), WriteMode.EXCLUSIVE))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(read(file)).isEqualTo("first");
    }

    @Test
    void ofConcurrentExclusiveCreatorsExactlyOneWins() throws Exception {
        FsPath file = root.resolve("race");
        int creators = 8;
        ExecutorService pool = Executors.newFixedThreadPool(creators);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < creators; i++) {
                String text = "creator " + i;
                Callable<Boolean> create = () -> {
                    start.await();
                    try {
                        fs.writeFile(file, bytes(text), WriteMode.EXCLUSIVE);
                        return true;
                    } catch (FileAlreadyExistsException e) {
                        return false;
                    }
                };
                results.add(pool.submit(create));
            }
            start.countDown();
            int winners = 0;
            for (Future<Boolean> result : results) {
                winners += result.get(30, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertThat(winners).isEqualTo(1);
            assertThat(read(file)).startsWith("creator ");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void overwriteReplacesTheContents() throws IOException {
        FsPath file = root.resolve("f");
        write(file, "a longer first version");
        fs.writeFile(file, bytes("short"), WriteMode.OVERWRITE);

        assertThat(read(file)).isEqualTo("short");
        assertThat(fs.status(file).lengthBytes()).isEqualTo(5);

        FsPath fresh = root.resolve("fresh");
        fs.writeFile(fresh, bytes("new"), WriteMode.OVERWRITE);
        assertThat(read(fresh)).isEqualTo("new");
    }

    @Test
    void aFileWhereADirectoryShouldBeIsNotDirectoryNeverFileAlreadyExists() throws IOException {
        FsPath file = root.resolve("plain");
        write(file, "x");

        assertThatThrownBy(() -> fs.create(file.resolve("child"), WriteMode.EXCLUSIVE))
                .isInstanceOf(NotDirectoryException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> fs.mkdirs(file.resolve("a/b")))
                .isInstanceOf(NotDirectoryException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> fs.mkdirs(file)).isInstanceOf(NotDirectoryException.class);
    }

    @Test
    void creatingAFileWhereADirectoryIsFailsButNotAsFileAlreadyExists() throws IOException {
        FsPath directory = root.resolve("dir");
        fs.mkdirs(directory);

        assertThatThrownBy(() -> fs.create(directory, WriteMode.EXCLUSIVE))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(directory.toString());
        assertThat(fs.status(directory).isDirectory()).isTrue();
    }

    // ---- sync --------------------------------------------------------------------------------

    @Test
    void syncedBytesAreVisibleToReadersBeforeTheFileIsClosed() throws IOException {
        FsPath file = root.resolve("log");
        try (FsOutputStream out = fs.create(file, WriteMode.EXCLUSIVE)) {
            out.write(bytes("first;"));
            out.sync();
            assertThat(read(file)).isEqualTo("first;");

            out.write(bytes("second;"));
            out.sync();
            out.sync();
            assertThat(out.position()).isEqualTo(13);
            assertThat(read(file)).isEqualTo("first;second;");
            assertThat(fs.status(file).lengthBytes()).isEqualTo(13);
        }
        assertThat(read(file)).isEqualTo("first;second;");
    }

    @Test
    void closeWithoutSyncStillKeepsTheBytesForReaders() throws IOException {
        FsPath file = root.resolve("unsynced");
        try (FsOutputStream out = fs.create(file, WriteMode.EXCLUSIVE)) {
            out.write(bytes("kept"));
        }

        assertThat(read(file)).isEqualTo("kept");
    }

    // ---- ranged reads ------------------------------------------------------------------------

    @Test
    void aRangedReadReturnsExactlyThatRange() throws IOException {
        FsPath file = root.resolve("segments");
        write(file, "0123456789abcdef");

        assertThat(readRange(file, 0, 16)).isEqualTo("0123456789abcdef");
        assertThat(readRange(file, 3, 4)).isEqualTo("3456");
        assertThat(readRange(file, 10, 6)).isEqualTo("abcdef");
        assertThat(readRange(file, 16, 0)).isEmpty();
        assertThat(readRange(file, 7, 0)).isEmpty();
        try (InputStream in = fs.open(file, 2, 3)) {
            assertThat(in.read()).isEqualTo('2');
            assertThat(in.skip(1)).isEqualTo(1);
            assertThat(in.read()).isEqualTo('4');
            assertThat(in.read()).isEqualTo(-1);
            assertThat(in.read(new byte[4], 0, 4)).isEqualTo(-1);
        }
    }

    @Test
    void manyRangesOfOneFileReadBackTheirOwnBytes() throws IOException {
        FsPath file = root.resolve("merged");
        List<String> segments = new ArrayList<>();
        try (FsOutputStream out = fs.create(file, WriteMode.EXCLUSIVE)) {
            for (int i = 0; i < 10; i++) {
                String segment = ("segment-" + i + "-").repeat(i + 1);
                segments.add(segment);
                out.write(bytes(segment));
            }
            out.sync();
        }
        long offset = 0;
        for (String segment : segments) {
            assertThat(readRange(file, offset, segment.length())).isEqualTo(segment);
            offset += segment.length();
        }
    }

    @Test
    void aRangePastTheEndIsAnEofExceptionNamingTheFileNeverAShortRead() throws IOException {
        FsPath file = root.resolve("short");
        write(file, "0123456789");

        assertThatThrownBy(() -> readRange(file, 5, 6))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> readRange(file, 11, 0)).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> fs.open(file, -1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fs.open(file, 0, -2)).isInstanceOf(IllegalArgumentException.class);
    }

    private String readRange(FsPath file, long offset, long length) throws IOException {
        try (InputStream in = fs.open(file, offset, length)) {
            return new String(in.readAllBytes(), UTF_8);
        }
    }

    // ---- missing files -------------------------------------------------------------------------

    @Test
    void aMissingFileIsANoSuchFileExceptionNamingItEverywhere() throws IOException {
        FsPath missing = root.resolve("missing/file");

        assertThat(fs.exists(missing)).isFalse();
        assertThat(fs.readFileIfExists(missing)).isEmpty();
        assertNoSuchFile(() -> fs.open(missing), missing);
        assertNoSuchFile(() -> fs.open(missing, 0, 0), missing);
        assertNoSuchFile(() -> fs.readFile(missing), missing);
        assertNoSuchFile(() -> fs.status(missing), missing);
        assertNoSuchFile(() -> fs.list(missing), missing);
        assertNoSuchFile(() -> {
            fs.rename(missing, root.resolve("target"), WriteMode.EXCLUSIVE);
            return null;
        }, missing);
        assertThat(fs.exists(root.resolve("target"))).isFalse();
    }

    private static void assertNoSuchFile(Callable<?> action, FsPath missing) {
        assertThatThrownBy(action::call)
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(missing.toString());
    }

    // ---- directories -------------------------------------------------------------------------

    @Test
    void listingGivesTheDirectEntriesSortedByName() throws IOException {
        write(root.resolve("b"), "bb");
        write(root.resolve("a"), "a");
        write(root.resolve("c/inner"), "not listed");
        write(root.resolve(".hidden.tmp"), "listed too");

        List<FileStatus> entries = fs.list(root);

        assertThat(entries).extracting(status -> status.path().name())
                .containsExactly(".hidden.tmp", "a", "b", "c");
        assertThat(entries).extracting(FileStatus::path)
                .containsExactly(root.resolve(".hidden.tmp"), root.resolve("a"), root.resolve("b"), root.resolve("c"));
        assertThat(entries.get(2).lengthBytes()).isEqualTo(2);
        assertThat(entries.get(2).isDirectory()).isFalse();
        assertThat(entries.get(3).isDirectory()).isTrue();
        assertThat(fs.list(root.resolve("c"))).singleElement()
                .satisfies(status -> assertThat(status.path()).isEqualTo(root.resolve("c/inner")));
    }

    @Test
    void listingAMissingDirectoryOrAFileFails() throws IOException {
        FsPath file = root.resolve("file");
        write(file, "x");

        assertThat(fs.listIfExists(root.resolve("nothing"))).isEmpty();
        assertThatThrownBy(() -> fs.list(file)).isInstanceOf(NotDirectoryException.class)
                .hasMessageContaining(file.toString());
    }

    @Test
    void mkdirsCreatesParentsAndIsIdempotent() throws IOException {
        FsPath directory = root.resolve("p/q/r");
        fs.mkdirs(directory);
        fs.mkdirs(directory);

        assertThat(fs.status(directory).isDirectory()).isTrue();
        assertThat(fs.list(directory)).isEmpty();
        assertThat(fs.list(root.resolve("p"))).extracting(FileStatus::path).containsExactly(root.resolve("p/q"));
    }

    // ---- delete --------------------------------------------------------------------------------

    @Test
    void deleteIsIdempotentAndSaysWhetherTheFileExisted() throws IOException {
        FsPath file = root.resolve("f");
        write(file, "x");

        assertThat(fs.delete(file)).isTrue();
        assertThat(fs.exists(file)).isFalse();
        assertThat(fs.delete(file)).isFalse();
        assertThat(fs.delete(root.resolve("never/was"))).isFalse();
    }

    @Test
    void deleteRemovesAnEmptyDirectoryButNotAFullOne() throws IOException {
        FsPath empty = root.resolve("empty");
        fs.mkdirs(empty);
        FsPath full = root.resolve("full");
        write(full.resolve("f"), "x");

        assertThat(fs.delete(empty)).isTrue();
        assertThat(fs.exists(empty)).isFalse();
        assertThatThrownBy(() -> fs.delete(full)).isInstanceOf(DirectoryNotEmptyException.class)
                .hasMessageContaining(full.toString());
        assertThat(read(full.resolve("f"))).isEqualTo("x");
    }

    @Test
    void deleteRecursivelyRemovesATreeAndIsIdempotent() throws IOException {
        FsPath tree = root.resolve("job");
        write(tree.resolve("job-events/events.0"), "0");
        write(tree.resolve("job-events/events.1"), "1");
        write(tree.resolve("chk-1/a/b/state"), "s");
        fs.mkdirs(tree.resolve("shared"));
        write(root.resolve("job-2/keep"), "other job");

        assertThat(fs.deleteRecursively(tree)).isTrue();
        assertThat(fs.exists(tree)).isFalse();
        assertThat(fs.deleteRecursively(tree)).isFalse();
        assertThat(read(root.resolve("job-2/keep"))).isEqualTo("other job");

        FsPath file = root.resolve("single");
        write(file, "x");
        assertThat(fs.deleteRecursively(file)).isTrue();
        assertThat(fs.exists(file)).isFalse();
    }

    // ---- rename -------------------------------------------------------------------------------

    @Test
    void renameMovesTheFileAndItsContents() throws IOException {
        FsPath source = root.resolve(".f.tmp");
        FsPath target = root.resolve("sub/dir/f");
        write(source, "contents");

        fs.rename(source, target, WriteMode.EXCLUSIVE);

        assertThat(fs.exists(source)).isFalse();
        assertThat(read(target)).isEqualTo("contents");
    }

    @Test
    void exclusiveRenameOntoAnExistingFileFailsAndChangesNothing() throws IOException {
        FsPath source = root.resolve("source");
        FsPath target = root.resolve("target");
        write(source, "new");
        write(target, "old");

        assertThatThrownBy(() -> fs.rename(source, target, WriteMode.EXCLUSIVE))
                .isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(target.toString());
        assertThat(read(source)).isEqualTo("new");
        assertThat(read(target)).isEqualTo("old");
    }

    @Test
    void ofConcurrentExclusiveRenamesOntoOneNameExactlyOneWinsWhereRenameIsAtomic() throws Exception {
        assumeTrue(fs.isRenameAtomic(), "without atomic rename, exclusive rename only checks before it renames");
        int renamers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(renamers);
        try {
            for (int round = 0; round < 20; round++) {
                FsPath target = root.resolve("target-" + round);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<String>> results = new ArrayList<>();
                for (int i = 0; i < renamers; i++) {
                    FsPath source = root.resolve(".source-" + round + "-" + i);
                    String text = "renamer " + i;
                    write(source, text);
                    Callable<String> rename = () -> {
                        start.await();
                        try {
                            fs.rename(source, target, WriteMode.EXCLUSIVE);
                            return text;
                        } catch (FileAlreadyExistsException e) {
                            return null;
                        }
                    };
                    results.add(pool.submit(rename));
                }
                start.countDown();
                List<String> winners = new ArrayList<>();
                for (Future<String> result : results) {
                    String winner = result.get(30, TimeUnit.SECONDS);
                    if (winner != null) {
                        winners.add(winner);
                    }
                }
                assertThat(winners).as("round %d", round).hasSize(1);
                assertThat(read(target)).isEqualTo(winners.get(0));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void overwritingRenameReplacesTheTarget() throws IOException {
        FsPath source = root.resolve("source");
        FsPath target = root.resolve("target");
        write(source, "new");
        write(target, "the old contents");

        fs.rename(source, target, WriteMode.OVERWRITE);

        assertThat(fs.exists(source)).isFalse();
        assertThat(read(target)).isEqualTo("new");
        FsPath another = root.resolve("another");
        write(another, "x");
        fs.rename(another, root.resolve("absent-target"), WriteMode.OVERWRITE);
        assertThat(read(root.resolve("absent-target"))).isEqualTo("x");
    }

    // ---- paths ---------------------------------------------------------------------------------

    @Test
    void theFileSystemServesTheSchemeOfItsPaths() {
        assertThat(fs.scheme()).isEqualTo(root.scheme());
    }
}
