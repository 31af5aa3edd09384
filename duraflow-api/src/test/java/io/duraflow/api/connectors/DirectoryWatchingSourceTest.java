package io.duraflow.api.connectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.connectors.SourceHarness.Event;
import io.duraflow.api.connectors.SourceHarness.FakeReaderContext;
import io.duraflow.api.connectors.SourceHarness.RecordingEnumeratorContext;
import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataWriter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryWatchingSourceTest {
    private static final Duration INTERVAL = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    /** One enumerator and one reader of a watching source, driven in this thread like the runtime would. */
    private static final class Watch<T> {
        final Source<T, FileSplit> source;
        final RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(1);
        final SplitEnumerator<FileSplit> enumerator;
        final FakeReaderContext readerContext = new FakeReaderContext(0, 1);
        final SourceReader<T, FileSplit> reader;

        Watch(Source<T, FileSplit> source, byte[] enumeratorState, List<FileSplit> readerState) throws Exception {
            this.source = source;
            this.enumerator = enumeratorState == null ? source.createEnumerator(context)
                    : source.restoreEnumerator(context, enumeratorState);
            enumerator.start();
            reader = source.createReader(readerContext);
            if (!readerState.isEmpty()) {
                reader.addSplits(readerState);
            }
            reader.start();
        }

        /** The directory listing's period passed. */
        void list() {
            context.runAsyncWork();
        }

        /** Reads until the reader waits for a split the enumerator does not have yet. */
        List<T> readUntilIdle() throws Exception {
            List<T> out = new ArrayList<>();
            for (int step = 0; step < 100_000; step++) {
                deliver();
                InputStatus status = reader.pollNext(io.duraflow.api.source.ReaderOutput.of(out::add));
                assertThat(status).as("an unbounded source never ends").isNotEqualTo(InputStatus.END_OF_INPUT);
                if (status == InputStatus.NOTHING_AVAILABLE) {
                    if (readerContext.outstandingRequests > 0) {
                        readerContext.outstandingRequests--;
                        enumerator.handleSplitRequest(0);
                    }
                    if (context.events.isEmpty()) {
                        return out;
                    }
                }
            }
            throw new AssertionError("the reader never went idle");
        }

        /** Hands the next assignment to the reader without letting it read. */
        void takeOneSplit() {
            if (readerContext.outstandingRequests > 0) {
                readerContext.outstandingRequests--;
                enumerator.handleSplitRequest(0);
            }
            deliver();
        }

        private void deliver() {
            for (Event<FileSplit> event; (event = context.events.poll()) != null; ) {
                assertThat(event.split()).as("a watching source never signals no more splits").isNotNull();
                reader.addSplits(List.of(event.split()));
            }
        }
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    /** Writes under a hidden name, then renames: the convention the watcher relies on. */
    private void publish(String name, String content) throws IOException {
        Path hidden = write("." + name + ".tmp", content);
        Files.move(hidden, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void findsNewFilesAtEveryListingAndIgnoresHiddenOnes() throws Exception {
        write("a.txt", "a1\na2\n");
        write(".b.inprogress", "hidden\n");
        write("_c", "underscore\n");
        Files.createDirectory(dir.resolve("sub"));
        write("sub/d.txt", "not recursive\n");
        TextFileSource source = TextFileSource.watching(dir.toString(), INTERVAL, 4);
        Watch<String> watch = new Watch<>(source, null, List.of());

        assertThat(source.boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(watch.readUntilIdle()).as("nothing before the first listing").isEmpty();
        watch.list();
        assertThat(watch.readUntilIdle()).containsExactly("a1", "a2");

        watch.list();
        assertThat(watch.readUntilIdle()).as("a listing without new files").isEmpty();

        write(".e.txt.tmp", "e1\n");
        watch.list();
        assertThat(watch.readUntilIdle()).as("a file still being written").isEmpty();
        Files.move(dir.resolve(".e.txt.tmp"), dir.resolve("e.txt"), StandardCopyOption.ATOMIC_MOVE);
        publish("f.txt", "f1\nf2\nf3");
        write("empty.txt", "");
        watch.list();
        assertThat(watch.readUntilIdle()).containsExactly("e1", "f1", "f2", "f3");
        assertThat(((DirectoryWatchingEnumerator) watch.enumerator).seenFileCount()).isEqualTo(4);
    }

    @Test
    void aFileIsReadOnceWithTheSizeItHadWhenFirstListed() throws Exception {
        write("a.txt", "a1\n");
        Watch<String> watch = new Watch<>(TextFileSource.watching(dir.toString(), INTERVAL), null, List.of());
        watch.list();
        assertThat(watch.readUntilIdle()).containsExactly("a1");

        Files.writeString(dir.resolve("a.txt"), "a2\n", java.nio.file.StandardOpenOption.APPEND);
        watch.list();
        assertThat(watch.readUntilIdle()).as("files are immutable once visible: appends are not read").isEmpty();
    }

    @Test
    void readersThatAskedBeforeFilesExistAreServedInTheOrderTheyAsked() throws Exception {
        RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(3);
        SplitEnumerator<FileSplit> enumerator = TextFileSource.watching(dir.toString(), INTERVAL, 3)
                .createEnumerator(context);
        enumerator.start();
        enumerator.handleSplitRequest(2);
        enumerator.handleSplitRequest(0);
        enumerator.handleSplitRequest(1);
        assertThat(context.events).isEmpty();

        write("x", "123456"); // splits [0,3) and [3,6)
        context.runAsyncWork();
        assertThat(context.events).containsExactly(
                new Event<>(new FileSplit(dir.resolve("x").toString(), 0, 3), 2),
                new Event<>(new FileSplit(dir.resolve("x").toString(), 3, 3), 0));

        // Subtask 0 fails: its split comes back and goes to subtask 1, which still waits; the
        // failed attempt's request is forgotten (its successor asks again).
        context.events.clear();
        enumerator.addSplitsBack(List.of(new FileSplit(dir.resolve("x").toString(), 3, 3)), 0);
        assertThat(context.events).containsExactly(new Event<>(new FileSplit(dir.resolve("x").toString(), 3, 3), 1));
        context.events.clear();
        write("y", "1");
        context.runAsyncWork();
        assertThat(context.events).as("nobody waits any more").isEmpty();
        enumerator.handleSplitRequest(0);
        assertThat(context.events).containsExactly(new Event<>(new FileSplit(dir.resolve("y").toString(), 0, 1), 0));
    }

    /**
     * A checkpoint taken mid-way, then more progress and new files, then a restore from the
     * checkpoint: the output before the checkpoint plus the output after the restore holds every
     * line once, including a file the lost execution had read after the checkpoint and one that
     * appeared while the job was down.
     */
    @Test
    void aRestoredSourceReadsEveryFileOnceIncludingFilesThatAppearedAfterTheCheckpoint() throws Exception {
        write("a", "a1\na2\na3\n");
        write("b", "b1\nb2\n");
        TextFileSource source = TextFileSource.watching(dir.toString(), INTERVAL, 3, 2);
        Watch<String> first = new Watch<>(source, null, List.of());
        first.list();
        List<String> beforeCheckpoint = new ArrayList<>();
        first.takeOneSplit();
        first.reader.pollNext(io.duraflow.api.source.ReaderOutput.of(beforeCheckpoint::add)); // a's first split: a1
        first.takeOneSplit(); // a's second split, not read yet
        assertThat(beforeCheckpoint).containsExactly("a1");

        byte[] enumeratorState = first.enumerator.snapshotState(1);
        List<FileSplit> readerState = first.reader.snapshotState(1);

        write("c", "c1\n");
        first.list();
        first.readUntilIdle(); // the lost execution reads a, b and c after the checkpoint
        write("d", "d1\n"); // appears while the job is down
        first.reader.close();
        first.enumerator.close();

        Watch<String> restored = new Watch<>(source, enumeratorState, readerState);
        List<String> afterRestore = new ArrayList<>(restored.readUntilIdle());
        restored.list();
        afterRestore.addAll(restored.readUntilIdle());

        List<String> all = new ArrayList<>(beforeCheckpoint);
        all.addAll(afterRestore);
        assertThat(all).containsExactlyInAnyOrder("a1", "a2", "a3", "b1", "b2", "c1", "d1");

        // And the restored enumerator's own checkpoint carries on: a later restore reads nothing again.
        Watch<String> again = new Watch<>(source, restored.enumerator.snapshotState(2),
                restored.reader.snapshotState(2));
        again.list();
        assertThat(again.readUntilIdle()).isEmpty();
    }

    @Test
    void csvSourcesWatchToo() throws Exception {
        CsvFileSource source = CsvFileSource.watching(dir.toString(), INTERVAL, ';', true);
        assertThat(source.boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        Watch<List<String>> watch = new Watch<>(source, null, List.of());
        publish("1.csv", "id;name\n1;x\n");
        watch.list();
        assertThat(watch.readUntilIdle()).containsExactly(List.of("1", "x"));
        publish("2.csv", "id;name\n2;y\n");
        watch.list();
        assertThat(watch.readUntilIdle()).containsExactly(List.of("2", "y"));
        assertThat(source.description()).contains("watch=10000ms");
    }

    @Test
    void stateFormatIsByteExact() {
        String path = "/in/day-02.csv";
        WatchedDirectoryState state = new WatchedDirectoryState(List.of("day-01.csv", "day-02.csv"),
                List.of(new FileSplit(path, 5, 7)));
        DataWriter expected = new DataWriter();
        expected.writeVarInt(1); // version
        expected.writeVarInt(2); // names
        expected.writeVarInt(0);
        expected.writeString("day-01.csv");
        expected.writeVarInt(5); // "day-0" shared
        expected.writeString("2.csv");
        expected.writeVarInt(1); // splits
        byte[] split = FileSplit.SERIALIZER.toBytes(new FileSplit(path, 5, 7));
        expected.writeVarInt(split.length);
        expected.writeBytes(split);
        CRC32C crc = new CRC32C();
        crc.update(expected.buffer(), 0, expected.position());
        expected.writeInt((int) crc.getValue());

        assertThat(state.toBytes()).isEqualTo(expected.toByteArray());
        assertThat(WatchedDirectoryState.fromBytes(expected.toByteArray(), "/in")).isEqualTo(state);
    }

    @Test
    void namesSharingPrefixesAndSurrogatePairsRoundTrip() {
        List<String> names = List.of("a", "ab", "abc", "b", "x\uD83D\uDE00a", "x\uD83D\uDE01b", "日本", "日本語");
        WatchedDirectoryState state = new WatchedDirectoryState(names.stream().sorted().toList(), List.of());
        assertThat(WatchedDirectoryState.fromBytes(state.toBytes(), "/in")).isEqualTo(state);
    }

    @Test
    void corruptOrUnknownStateFailsNamingTheDirectory() throws Exception {
        write("a", "a1\n");
        TextFileSource source = TextFileSource.watching(dir.toString(), INTERVAL);
        RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(1);
        SplitEnumerator<FileSplit> enumerator = source.createEnumerator(context);
        enumerator.start();
        context.runAsyncWork();
        byte[] state = enumerator.snapshotState(1);

        byte[] flipped = state.clone();
        flipped[3] ^= 1;
        assertThatThrownBy(() -> source.restoreEnumerator(context, flipped))
                .isInstanceOf(CorruptDataException.class)
                .hasMessageContaining("file source watching " + dir)
                .hasMessageContaining("is corrupt (CRC32C mismatch)");

        DataWriter v2 = new DataWriter();
        v2.writeVarInt(2);
        v2.writeVarInt(0);
        v2.writeVarInt(0);
        CRC32C crc = new CRC32C();
        crc.update(v2.buffer(), 0, v2.position());
        v2.writeInt((int) crc.getValue());
        assertThatThrownBy(() -> source.restoreEnumerator(context, v2.toByteArray()))
                .isInstanceOf(CorruptDataException.class)
                .hasMessageContaining("has format version 2, this build reads version 1");

        assertThatThrownBy(() -> source.restoreEnumerator(context, new byte[] {1, 0}))
                .isInstanceOf(CorruptDataException.class)
                .hasMessageContaining("too short");
    }

    @Test
    void aMissingDirectoryFailsAtStartAndAListingFailureFailsTheEnumerator() throws Exception {
        TextFileSource missing = TextFileSource.watching(dir.resolve("nope").toString(), INTERVAL);
        assertThatThrownBy(() -> missing.createEnumerator(new RecordingEnumeratorContext<>(1)))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessage("watched directory not found: " + dir.resolve("nope") + "; create it before the job starts");
        assertThatThrownBy(() -> TextFileSource.watching(dir.toString(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 ms");

        Path watched = Files.createDirectory(dir.resolve("w"));
        RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(1);
        TextFileSource.watching(watched.toString(), INTERVAL).createEnumerator(context).start();
        Files.delete(watched);
        assertThatThrownBy(context::runAsyncWork)
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot list the directory " + watched);
    }
}
