package io.duraflow.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NotDirectoryException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The part of the {@link FileSystem} contract that creates files: what is written is read back,
 * parents are made, exclusive creation has exactly one winner, a file and a directory never stand
 * for each other, and synced or closed bytes are visible to readers.
 */
public interface FileSystemCreateContract extends FileSystemContract {
    // ---- create and read ------------------------------------------------------------------

    @Test
    default void whatIsWrittenIsReadBackWithItsLengthAndModificationTime() throws IOException {
        FsPath file = root().resolve("a.bin");
        byte[] data = new byte[100_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        long before = System.currentTimeMillis();
        try (FsOutputStream out = fs().create(file, WriteMode.EXCLUSIVE)) {
            out.write(data, 0, 10);
            out.write(data[10]);
            out.write(data, 11, data.length - 11);
            assertThat(out.position()).isEqualTo(data.length);
            out.sync();
        }

        assertThat(fs().readFile(file)).isEqualTo(data);
        try (InputStream in = fs().open(file)) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
        FileStatus status = fs().status(file);
        assertThat(status.path()).isEqualTo(file);
        assertThat(status.isDirectory()).isFalse();
        assertThat(status.lengthBytes()).isEqualTo(data.length);
        // File systems store times at their own resolution (seconds on some); allow for that.
        assertThat(status.modificationTimeMs()).isBetween(before - 2_000, System.currentTimeMillis() + 2_000);
        assertThat(fs().exists(file)).isTrue();
    }

    /**
     * Tasks of one TaskManager write their parts of a checkpoint into the same new directory at
     * the same moment: every one of them must find it made, none may see "a file where a
     * directory should be" because another created it between two checks.
     */
    @Test
    default void concurrentMkdirsOfTheSameNewDirectoryAllSucceed() throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 300; round++) {
                FsPath directory = root().resolve("round-" + round).resolve("chk-1");
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Void>> made = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    made.add(pool.submit(() -> {
                        start.await();
                        fs().mkdirs(directory);
                        return null;
                    }));
                }
                start.countDown();
                for (Future<Void> each : made) {
                    each.get(30, TimeUnit.SECONDS);
                }
                assertThat(fs().status(directory).isDirectory()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    default void anEmptyFileExistsWithLengthZero() throws IOException {
        FsPath file = root().resolve("empty");
        fs().create(file, WriteMode.EXCLUSIVE).close();

        assertThat(fs().status(file).lengthBytes()).isZero();
        assertThat(fs().readFile(file)).isEmpty();
    }

    @Test
    default void createMakesMissingParentDirectories() throws IOException {
        FsPath file = root().resolve("x/y/z/file");
        write(file, "deep");

        assertThat(read(file)).isEqualTo("deep");
        assertThat(fs().status(root().resolve("x/y")).isDirectory()).isTrue();
    }

    @Test
    default void exclusiveCreateOfAnExistingFileFailsNamingItAndLeavesItAlone() throws IOException {
        FsPath file = root().resolve("taken");
        write(file, "first");

        assertThatThrownBy(() -> fs().create(file, WriteMode.EXCLUSIVE))
                .isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> fs().writeFile(file, bytes("second"), WriteMode.EXCLUSIVE))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(read(file)).isEqualTo("first");
    }

    @Test
    default void ofConcurrentExclusiveCreatorsExactlyOneWins() throws Exception {
        FsPath file = root().resolve("race");
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
                        fs().writeFile(file, bytes(text), WriteMode.EXCLUSIVE);
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
    default void overwriteReplacesTheContents() throws IOException {
        FsPath file = root().resolve("f");
        write(file, "a longer first version");
        fs().writeFile(file, bytes("short"), WriteMode.OVERWRITE);

        assertThat(read(file)).isEqualTo("short");
        assertThat(fs().status(file).lengthBytes()).isEqualTo(5);

        FsPath fresh = root().resolve("fresh");
        fs().writeFile(fresh, bytes("new"), WriteMode.OVERWRITE);
        assertThat(read(fresh)).isEqualTo("new");
    }

    @Test
    default void aFileWhereADirectoryShouldBeIsNotDirectoryNeverFileAlreadyExists() throws IOException {
        FsPath file = root().resolve("plain");
        write(file, "x");

        assertThatThrownBy(() -> fs().create(file.resolve("child"), WriteMode.EXCLUSIVE))
                .isInstanceOf(NotDirectoryException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> fs().mkdirs(file.resolve("a/b")))
                .isInstanceOf(NotDirectoryException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> fs().mkdirs(file)).isInstanceOf(NotDirectoryException.class);
    }

    @Test
    default void creatingAFileWhereADirectoryIsFailsButNotAsFileAlreadyExists() throws IOException {
        FsPath directory = root().resolve("dir");
        fs().mkdirs(directory);

        assertThatThrownBy(() -> fs().create(directory, WriteMode.EXCLUSIVE))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(directory.toString());
        assertThat(fs().status(directory).isDirectory()).isTrue();
    }

    // ---- sync --------------------------------------------------------------------------------

    @Test
    default void syncedBytesAreVisibleToReadersBeforeTheFileIsClosed() throws IOException {
        FsPath file = root().resolve("log");
        try (FsOutputStream out = fs().create(file, WriteMode.EXCLUSIVE)) {
            out.write(bytes("first;"));
            out.sync();
            assertThat(read(file)).isEqualTo("first;");

            out.write(bytes("second;"));
            out.sync();
            out.sync();
            assertThat(out.position()).isEqualTo(13);
            assertThat(read(file)).isEqualTo("first;second;");
            assertThat(fs().status(file).lengthBytes()).isEqualTo(13);
        }
        assertThat(read(file)).isEqualTo("first;second;");
    }

    @Test
    default void closeWithoutSyncStillKeepsTheBytesForReaders() throws IOException {
        FsPath file = root().resolve("unsynced");
        try (FsOutputStream out = fs().create(file, WriteMode.EXCLUSIVE)) {
            out.write(bytes("kept"));
        }

        assertThat(read(file)).isEqualTo("kept");
    }
}
