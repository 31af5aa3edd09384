package io.duraflow.api.connectors;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.connectors.SourceHarness.FakeReaderContext;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceSplit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader snapshotted mid-split and replaced by a new one restored from the snapshot reads every
 * record exactly once: what checkpoints of streaming sources rely on.
 */
class ReaderSnapshotTest {
    @TempDir
    Path dir;

    /**
     * Reads {@code splits}, replacing the reader by one restored from its snapshot after every
     * {@code pollsPerRun} polls; each run's snapshot is also round-tripped through the serializer.
     */
    private static <T, S extends SourceSplit> List<T> readWithRestarts(Supplier<SourceReader<T, S>> readers,
            List<S> splits, int pollsPerRun, io.duraflow.api.source.SplitSerializer<S> serializer) throws Exception {
        List<T> output = new ArrayList<>();
        List<S> state = splits;
        for (int run = 0; run < 100_000; run++) {
            SourceReader<T, S> reader = readers.get();
            reader.start();
            reader.addSplits(state);
            reader.notifyNoMoreSplits();
            for (int poll = 0; poll < pollsPerRun; poll++) {
                if (reader.pollNext(io.duraflow.api.source.ReaderOutput.of(output::add)) == InputStatus.END_OF_INPUT) {
                    reader.close();
                    return output;
                }
            }
            List<S> snapshot = new ArrayList<>();
            for (S split : reader.snapshotState(run)) {
                snapshot.add(serializer.fromBytes(serializer.toBytes(split)));
            }
            reader.close();
            state = snapshot;
        }
        throw new AssertionError("reader never ends");
    }

    @Test
    void rangeReadersRestoredFromSnapshotsReadEveryIndexOnce() throws Exception {
        Random random = new Random(7);
        for (int run = 0; run < 200; run++) {
            long to = random.nextInt(300);
            List<RangeSplit> splits = RangeSplits.split(0, to, 1 + random.nextInt(5));
            int perPoll = 1 + random.nextInt(7);
            List<Long> read = readWithRestarts(() -> new RangeReader<>(new FakeReaderContext(0, 1), Long::valueOf,
                    perPoll), splits, 1 + random.nextInt(4), RangeSplit.SERIALIZER);
            assertThat(read).as("run %d", run).hasSize((int) to);
            for (int i = 0; i < to; i++) {
                assertThat(read.get(i)).isEqualTo(i);
            }
        }
    }

    @Test
    void fileReadersRestoredFromSnapshotsReadEveryLineOnceWithAndWithoutAHeader() throws Exception {
        Random random = new Random(11);
        for (int run = 0; run < 300; run++) {
            byte[] content = TextFileSourceTest.randomText(random).getBytes(StandardCharsets.UTF_8);
            Path file = Files.write(dir.resolve("f-" + run + ".txt"), content);
            List<String> expected = TextFileSourceTest.expectedLines(content);
            boolean header = random.nextBoolean() && !expected.isEmpty();
            if (header) {
                expected = expected.subList(1, expected.size());
            }
            List<FileSplit> splits = content.length == 0 ? List.of()
                    : FileSplitPlanner.plan(file, 1 + random.nextInt(content.length));
            int perPoll = 1 + random.nextInt(3);
            int buffer = 1 + random.nextInt(64);
            boolean skipHeader = header;
            List<String> read = readWithRestarts(() -> new FileLineReader<>(new FakeReaderContext(0, 1),
                    (line, split, offset) -> line, skipHeader, buffer, perPoll), splits, 1 + random.nextInt(3),
                    FileSplit.SERIALIZER);
            assertThat(read).as("run %d header %s", run, header).isEqualTo(expected);
        }
    }
}
