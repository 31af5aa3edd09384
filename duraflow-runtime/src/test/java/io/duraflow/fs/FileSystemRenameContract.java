package io.duraflow.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
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
 * The part of the {@link FileSystem} contract that renames: a file moves with its contents, an
 * exclusive rename onto an existing file fails and changes nothing (exactly one of concurrent ones
 * wins where rename is atomic), and an overwriting rename replaces the target.
 */
public interface FileSystemRenameContract extends FileSystemContract {
    // ---- rename -------------------------------------------------------------------------------

    @Test
    default void renameMovesTheFileAndItsContents() throws IOException {
        FsPath source = root().resolve(".f.tmp");
        FsPath target = root().resolve("sub/dir/f");
        write(source, "contents");

        fs().rename(source, target, WriteMode.EXCLUSIVE);

        assertThat(fs().exists(source)).isFalse();
        assertThat(read(target)).isEqualTo("contents");
    }

    @Test
    default void exclusiveRenameOntoAnExistingFileFailsAndChangesNothing() throws IOException {
        FsPath source = root().resolve("source");
        FsPath target = root().resolve("target");
        write(source, "new");
        write(target, "old");

        assertThatThrownBy(() -> fs().rename(source, target, WriteMode.EXCLUSIVE))
                .isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(target.toString());
        assertThat(read(source)).isEqualTo("new");
        assertThat(read(target)).isEqualTo("old");
    }

    @Test
    default void ofConcurrentExclusiveRenamesOntoOneNameExactlyOneWinsWhereRenameIsAtomic() throws Exception {
        assumeTrue(fs().isRenameAtomic(), "without atomic rename, exclusive rename only checks before it renames");
        int renamers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(renamers);
        try {
            for (int round = 0; round < 20; round++) {
                FsPath target = root().resolve("target-" + round);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<String>> results = new ArrayList<>();
                for (int i = 0; i < renamers; i++) {
                    FsPath source = root().resolve(".source-" + round + "-" + i);
                    String text = "renamer " + i;
                    write(source, text);
                    Callable<String> rename = () -> {
                        start.await();
                        try {
                            fs().rename(source, target, WriteMode.EXCLUSIVE);
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
    default void overwritingRenameReplacesTheTarget() throws IOException {
        FsPath source = root().resolve("source");
        FsPath target = root().resolve("target");
        write(source, "new");
        write(target, "the old contents");

        fs().rename(source, target, WriteMode.OVERWRITE);

        assertThat(fs().exists(source)).isFalse();
        assertThat(read(target)).isEqualTo("new");
        FsPath another = root().resolve("another");
        write(another, "x");
        fs().rename(another, root().resolve("absent-target"), WriteMode.OVERWRITE);
        assertThat(read(root().resolve("absent-target"))).isEqualTo("x");
    }
}
