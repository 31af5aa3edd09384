package io.duraflow.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.NotDirectoryException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the {@link FileSystem} contract about the namespace: listing, making and deleting
 * directories and files (idempotent where it says so), and the scheme the file system serves.
 */
public interface FileSystemNamespaceContract extends FileSystemContract {
    // ---- directories -------------------------------------------------------------------------

    @Test
    default void listingGivesTheDirectEntriesSortedByName() throws IOException {
        write(root().resolve("b"), "bb");
        write(root().resolve("a"), "a");
        write(root().resolve("c/inner"), "not listed");
        write(root().resolve(".hidden.tmp"), "listed too");

        List<FileStatus> entries = fs().list(root());

        assertThat(entries).extracting(status -> status.path().name())
                .containsExactly(".hidden.tmp", "a", "b", "c");
        assertThat(entries).extracting(FileStatus::path)
                .containsExactly(root().resolve(".hidden.tmp"), root().resolve("a"), root().resolve("b"),
                        root().resolve("c"));
        assertThat(entries.get(2).lengthBytes()).isEqualTo(2);
        assertThat(entries.get(2).isDirectory()).isFalse();
        assertThat(entries.get(3).isDirectory()).isTrue();
        assertThat(fs().list(root().resolve("c"))).singleElement()
                .satisfies(status -> assertThat(status.path()).isEqualTo(root().resolve("c/inner")));
    }

    @Test
    default void listingAMissingDirectoryOrAFileFails() throws IOException {
        FsPath file = root().resolve("file");
        write(file, "x");

        assertThat(fs().listIfExists(root().resolve("nothing"))).isEmpty();
        assertThatThrownBy(() -> fs().list(file)).isInstanceOf(NotDirectoryException.class)
                .hasMessageContaining(file.toString());
    }

    @Test
    default void mkdirsCreatesParentsAndIsIdempotent() throws IOException {
        FsPath directory = root().resolve("p/q/r");
        fs().mkdirs(directory);
        fs().mkdirs(directory);

        assertThat(fs().status(directory).isDirectory()).isTrue();
        assertThat(fs().list(directory)).isEmpty();
        assertThat(fs().list(root().resolve("p"))).extracting(FileStatus::path).containsExactly(root().resolve("p/q"));
    }

    // ---- delete --------------------------------------------------------------------------------

    @Test
    default void deleteIsIdempotentAndSaysWhetherTheFileExisted() throws IOException {
        FsPath file = root().resolve("f");
        write(file, "x");

        assertThat(fs().delete(file)).isTrue();
        assertThat(fs().exists(file)).isFalse();
        assertThat(fs().delete(file)).isFalse();
        assertThat(fs().delete(root().resolve("never/was"))).isFalse();
    }

    @Test
    default void deleteRemovesAnEmptyDirectoryButNotAFullOne() throws IOException {
        FsPath empty = root().resolve("empty");
        fs().mkdirs(empty);
        FsPath full = root().resolve("full");
        write(full.resolve("f"), "x");

        assertThat(fs().delete(empty)).isTrue();
        assertThat(fs().exists(empty)).isFalse();
        assertThatThrownBy(() -> fs().delete(full)).isInstanceOf(DirectoryNotEmptyException.class)
                .hasMessageContaining(full.toString());
        assertThat(read(full.resolve("f"))).isEqualTo("x");
    }

    @Test
    default void deleteRecursivelyRemovesATreeAndIsIdempotent() throws IOException {
        FsPath tree = root().resolve("job");
        write(tree.resolve("job-events/events.0"), "0");
        write(tree.resolve("job-events/events.1"), "1");
        write(tree.resolve("chk-1/a/b/state"), "s");
        fs().mkdirs(tree.resolve("shared"));
        write(root().resolve("job-2/keep"), "other job");

        assertThat(fs().deleteRecursively(tree)).isTrue();
        assertThat(fs().exists(tree)).isFalse();
        assertThat(fs().deleteRecursively(tree)).isFalse();
        assertThat(read(root().resolve("job-2/keep"))).isEqualTo("other job");

        FsPath file = root().resolve("single");
        write(file, "x");
        assertThat(fs().deleteRecursively(file)).isTrue();
        assertThat(fs().exists(file)).isFalse();
    }

    // ---- paths ---------------------------------------------------------------------------------

    @Test
    default void theFileSystemServesTheSchemeOfItsPaths() {
        assertThat(fs().scheme()).isEqualTo(root().scheme());
    }
}
