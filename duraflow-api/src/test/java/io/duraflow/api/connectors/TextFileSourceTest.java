package io.duraflow.api.connectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.connectors.SourceHarness.RecordingEnumeratorContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TextFileSourceTest {
    private static final int[] BUFFER_SIZES = {1, 2, 3, 5, 16, 4096};

    @TempDir
    Path dir;

    /** The lines of a file by the documented rule, computed independently of the reader. */
    static List<String> expectedLines(byte[] content) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < content.length; i++) {
            if (content[i] == '\n') {
                int end = i > start && content[i - 1] == '\r' ? i - 1 : i;
                lines.add(new String(content, start, end - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        if (start < content.length) {
            lines.add(new String(content, start, content.length - start, StandardCharsets.UTF_8));
        }
        return lines;
    }

    private Path write(String name, byte[] content) throws IOException {
        return Files.write(dir.resolve(name), content);
    }

    private static List<String> read(Path path, long splitSize, int bufferBytes) throws Exception {
        return SourceHarness.readAll(new TextFileSource(path.toString(), splitSize, bufferBytes));
    }

    @Test
    void referenceModelFollowsTheDocumentedRule() {
        Map<String, List<String>> cases = Map.of(
                "", List.of(),
                "\n", List.of(""),
                "\r\n\n", List.of("", ""),
                "a", List.of("a"),
                "a\r\nb\r", List.of("a", "b\r"),
                "a\r\rb\n\nc", List.of("a\r\rb", "", "c"),
                "日本\r\n語", List.of("日本", "語"));
        cases.forEach((content, lines) ->
                assertThat(expectedLines(content.getBytes(StandardCharsets.UTF_8))).as(content).isEqualTo(lines));
    }

    @Test
    void everySplitSizeAndBufferSizeReadsTrickyFilesExactly() throws Exception {
        String[] contents = {"", "\n", "\n\n", "\r\n", "\r\n\r\n", "a", "a\n", "a\r\n", "a\r", "\r", "ab\n\ncd\r\n\r\nef",
            "x\ny\n", "\nfirst-empty", "a\r\rb\n", "日本\n語\r\nü", "long line here\nshort\n\n\nend\r\n"};
        for (int c = 0; c < contents.length; c++) {
            byte[] content = contents[c].getBytes(StandardCharsets.UTF_8);
            Path file = write("tricky-" + c + ".txt", content);
            List<String> expected = expectedLines(content);
            for (int splitSize = 1; splitSize <= content.length + 1; splitSize++) {
                for (int bufferBytes : new int[] {1, 2, 3, content.length + 1}) {
                    assertThat(read(file, splitSize, bufferBytes))
                            .as("content %s split %d buffer %d", escape(contents[c]), splitSize, bufferBytes)
                            .isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void randomFilesReadExactlyForRandomSplitSizes() throws Exception {
        Random random = new Random(20240601);
        for (int run = 0; run < 400; run++) {
            byte[] content = randomText(random).getBytes(StandardCharsets.UTF_8);
            Path file = write("random-" + run + ".txt", content);
            List<String> expected = expectedLines(content);
            List<Long> splitSizes = new ArrayList<>(List.of(1L, content.length + 1L));
            for (int i = 0; i < 3; i++) {
                splitSizes.add(1L + random.nextInt(content.length + 1));
            }
            for (long splitSize : splitSizes) {
                int bufferBytes = BUFFER_SIZES[random.nextInt(BUFFER_SIZES.length)];
                assertThat(read(file, splitSize, bufferBytes))
                        .as("run %d split %d buffer %d", run, splitSize, bufferBytes)
                        .isEqualTo(expected);
            }
        }
    }

    /** Lines of random length (many empty, some longer than small buffers), "\n" or "\r\n" ends. */
    static String randomText(Random random) {
        String alphabet = "abcxyz ,;\"é日\r";
        int lineCount = random.nextInt(10) == 0 ? 0 : random.nextInt(25);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lineCount; i++) {
            int length = random.nextInt(4) == 0 ? 0 : random.nextInt(random.nextInt(8) == 0 ? 200 : 12);
            for (int j = 0; j < length; j++) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            boolean last = i == lineCount - 1;
            if (!last || random.nextBoolean()) {
                text.append(random.nextInt(3) == 0 ? "\r\n" : "\n");
            }
        }
        return text.toString();
    }

    @Test
    void parallelReadersTogetherReadEveryLineOnce() throws Exception {
        Random random = new Random(3);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            text.append("line-").append(i).append("x".repeat(random.nextInt(30))).append(i % 7 == 0 ? "\r\n" : "\n");
        }
        byte[] content = text.toString().getBytes(StandardCharsets.UTF_8);
        Path file = write("big.txt", content);
        TextFileSource source = new TextFileSource(file.toString(), 997, 64);
        RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(4);
        SplitEnumerator<FileSplit> enumerator = source.createEnumerator(context);

        List<String> all = new ArrayList<>();
        SourceHarness.readAll(source, enumerator, context, 4).forEach(all::addAll);

        List<String> expected = new ArrayList<>(expectedLines(content));
        expected.sort(null);
        all.sort(null);
        assertThat(all).isEqualTo(expected);
    }

    @Test
    void readsTheVisibleFilesOfADirectoryInNameOrder() throws Exception {
        write("b.txt", "b1\nb2".getBytes(StandardCharsets.UTF_8));
        write("a.txt", "a1\r\na2\n".getBytes(StandardCharsets.UTF_8));
        write("c-empty.txt", new byte[0]);
        write("_SUCCESS", "skip\n".getBytes(StandardCharsets.UTF_8));
        write(".hidden", "skip\n".getBytes(StandardCharsets.UTF_8));
        Files.createDirectory(dir.resolve("sub"));
        write("sub/d.txt", "not recursive\n".getBytes(StandardCharsets.UTF_8));

        assertThat(read(dir, 2, 3)).containsExactly("a1", "a2", "b1", "b2");
    }

    @Test
    void emptyDirectoryAndEmptyFileHaveNoSplitsAndNoLines() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Path emptyFile = write("empty.txt", new byte[0]);
        RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(1);

        assertThat(new TextFileSource(emptyFile.toString()).createEnumerator(context).snapshotState(-1))
                .isEqualTo(new byte[] {1, 0});
        assertThat(SourceHarness.readAll(new TextFileSource(empty.toString()))).isEmpty();
    }

    @Test
    void filesAreCutIntoSplitsOfTheConfiguredSize() throws Exception {
        Path file = write("ten.txt", "0123456789".getBytes(StandardCharsets.UTF_8));

        assertThat(FileSplitPlanner.plan(file, 4)).containsExactly(new FileSplit(file.toString(), 0, 4),
                new FileSplit(file.toString(), 4, 4), new FileSplit(file.toString(), 8, 2));
        assertThat(FileSplitPlanner.plan(file, 10)).containsExactly(new FileSplit(file.toString(), 0, 10));
    }

    @Test
    void missingPathFailsWhenTheEnumeratorIsCreated() {
        Path missing = dir.resolve("nope").resolve("..").resolve("missing.txt");
        TextFileSource source = new TextFileSource(missing.toString());

        assertThatThrownBy(() -> source.createEnumerator(new RecordingEnumeratorContext<>(1)))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessage("input path not found: " + dir.resolve("missing.txt").toAbsolutePath());
    }

    @Test
    void relativePathsBecomeAbsolute() {
        assertThat(new TextFileSource("data/in.txt", 100).description())
                .isEqualTo("text(" + Path.of("data/in.txt").toAbsolutePath() + ",splitSize=100)");
        assertThat(new TextFileSource("/x/in.txt").description()).isEqualTo("text(/x/in.txt,splitSize=33554432)");
    }

    @Test
    void fileThatVanishedBeforeReadingFailsNamingTheFile() throws Exception {
        Path file = write("gone.txt", "a\nb\n".getBytes(StandardCharsets.UTF_8));
        TextFileSource source = new TextFileSource(file.toString());
        RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(1);
        SplitEnumerator<FileSplit> enumerator = source.createEnumerator(context);
        Files.delete(file);

        assertThatThrownBy(() -> SourceHarness.readAll(source, enumerator, context, 1))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("no longer exists");
    }

    @Test
    void fileThatShrankBeforeReadingFailsInsteadOfLosingLines() throws Exception {
        Path file = write("shrinks.txt", "aaaa\nbbbb\n".getBytes(StandardCharsets.UTF_8));
        TextFileSource source = new TextFileSource(file.toString(), 5);
        RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(1);
        SplitEnumerator<FileSplit> enumerator = source.createEnumerator(context);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(3);
        }

        assertThatThrownBy(() -> SourceHarness.readAll(source, enumerator, context, 1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("shrank");
    }

    @Test
    void readingResumesFromARestoredEnumerator() throws Exception {
        byte[] content = "one\ntwo\nthree\nfour\nfive\n".getBytes(StandardCharsets.UTF_8);
        Path file = write("resume.txt", content);
        TextFileSource source = new TextFileSource(file.toString(), 8);
        RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(1);
        SplitEnumerator<FileSplit> enumerator = source.createEnumerator(context);
        enumerator.handleSplitRequest(0);
        enumerator.handleSplitRequest(0);
        enumerator.addSplitsBack(List.of(context.assigned.get(1)), 0);
        byte[] state = enumerator.snapshotState(3);

        RecordingEnumeratorContext<FileSplit> restoredContext = new RecordingEnumeratorContext<>(1);
        List<String> rest = SourceHarness.readAll(source, source.restoreEnumerator(restoredContext, state),
                restoredContext, 1).get(0);

        // Split 0 is [0,8) "one\ntwo\n"; the rest start at byte 8.
        assertThat(rest).containsExactly("three", "four", "five");
    }

    @Test
    void fileSplitSerializerRoundTrips() {
        List<FileSplit> splits = List.of(new FileSplit("/data/in.txt", 0, 1),
                new FileSplit("/data/ünïcødé 日本/x.csv", 33_554_432L * 1000, 33_554_432L),
                new FileSplit("/" + "p".repeat(300), Long.MAX_VALUE - 1, 1));
        DataWriter out = new DataWriter();
        for (FileSplit split : splits) {
            assertThat(FileSplit.SERIALIZER.fromBytes(FileSplit.SERIALIZER.toBytes(split))).isEqualTo(split);
            FileSplit.SERIALIZER.write(split, out);
        }
        DataReader in = new DataReader(out.toByteArray());
        for (FileSplit split : splits) {
            assertThat(FileSplit.SERIALIZER.read(in)).isEqualTo(split);
        }
        assertThat(in.hasRemaining()).isFalse();
        assertThat(splits.get(0).splitId()).isEqualTo("/data/in.txt:0+1");
    }

    @Test
    void rejectsBadConfiguration() {
        assertThatThrownBy(() -> new TextFileSource("/x", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TextFileSource("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FileSplit("/x", -1, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    private static String escape(String text) {
        return text.replace("\r", "\\r").replace("\n", "\\n");
    }
}
