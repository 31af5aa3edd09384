package io.duraflow.fs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The part of the {@link FileSystem} contract that reads: ranged reads return exactly their range
 * (past the end an {@link EOFException}, never a short read), and a missing file is a
 * {@link NoSuchFileException} naming it, whatever the call.
 */
public interface FileSystemReadContract extends FileSystemContract {
    // ---- ranged reads ------------------------------------------------------------------------

    @Test
    default void aRangedReadReturnsExactlyThatRange() throws IOException {
        FsPath file = root().resolve("segments");
        write(file, "0123456789abcdef");

        assertThat(readRange(file, 0, 16)).isEqualTo("0123456789abcdef");
        assertThat(readRange(file, 3, 4)).isEqualTo("3456");
        assertThat(readRange(file, 10, 6)).isEqualTo("abcdef");
        assertThat(readRange(file, 16, 0)).isEmpty();
        assertThat(readRange(file, 7, 0)).isEmpty();
        try (InputStream in = fs().open(file, 2, 3)) {
            assertThat(in.read()).isEqualTo('2');
            assertThat(in.skip(1)).isEqualTo(1);
            assertThat(in.read()).isEqualTo('4');
            assertThat(in.read()).isEqualTo(-1);
            assertThat(in.read(new byte[4], 0, 4)).isEqualTo(-1);
        }
    }

    @Test
    default void manyRangesOfOneFileReadBackTheirOwnBytes() throws IOException {
        FsPath file = root().resolve("merged");
        List<String> segments = new ArrayList<>();
        try (FsOutputStream out = fs().create(file, WriteMode.EXCLUSIVE)) {
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
    default void aRangePastTheEndIsAnEofExceptionNamingTheFileNeverAShortRead() throws IOException {
        FsPath file = root().resolve("short");
        write(file, "0123456789");

        assertThatThrownBy(() -> readRange(file, 5, 6))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> readRange(file, 11, 0)).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> fs().open(file, -1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fs().open(file, 0, -2)).isInstanceOf(IllegalArgumentException.class);
    }

    private String readRange(FsPath file, long offset, long length) throws IOException {
        try (InputStream in = fs().open(file, offset, length)) {
            return new String(in.readAllBytes(), UTF_8);
        }
    }

    // ---- missing files -------------------------------------------------------------------------

    @Test
    default void aMissingFileIsANoSuchFileExceptionNamingItEverywhere() throws IOException {
        FsPath missing = root().resolve("missing/file");

        assertThat(fs().exists(missing)).isFalse();
        assertThat(fs().readFileIfExists(missing)).isEmpty();
        assertNoSuchFile(() -> fs().open(missing), missing);
        assertNoSuchFile(() -> fs().open(missing, 0, 0), missing);
        assertNoSuchFile(() -> fs().readFile(missing), missing);
        assertNoSuchFile(() -> fs().status(missing), missing);
        assertNoSuchFile(() -> fs().list(missing), missing);
        assertNoSuchFile(() -> {
            fs().rename(missing, root().resolve("target"), WriteMode.EXCLUSIVE);
            return null;
        }, missing);
        assertThat(fs().exists(root().resolve("target"))).isFalse();
    }

    private static void assertNoSuchFile(Callable<?> action, FsPath missing) {
        assertThatThrownBy(action::call)
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(missing.toString());
    }
}
