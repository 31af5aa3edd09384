package io.duraflow.api.connectors;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.connectors.SourceHarness.Event;
import io.duraflow.api.connectors.SourceHarness.FakeReaderContext;
import io.duraflow.api.connectors.SourceHarness.RecordingEnumeratorContext;
import io.duraflow.api.sink.CommittingSinkDriver;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SplitEnumerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded fault simulations of the streaming file connectors, driven the way the runtime will:
 * random steps (new files, listings, reads, writes, checkpoints that complete, abort or lose their
 * notifications, crashes that restore the latest completed checkpoint at a random parallelism),
 * then the end of input, and the exactly-once invariant on what the job emitted or committed.
 */
class StreamingConnectorsSimulationTest {
    @TempDir
    Path dir;

    /** What a completed checkpoint holds of the source: enumerator bytes, reader splits, and the output then. */
    private record SourceCheckpoint(byte[] enumerator, List<FileSplit> readerSplits, int outputSize) {}

    /** One execution of the source: an enumerator and its readers, all driven from this thread. */
    private static final class SourceExecution {
        final RecordingEnumeratorContext<FileSplit> context;
        final SplitEnumerator<FileSplit> enumerator;
        final List<SourceReader<String, FileSplit>> readers = new ArrayList<>();
        final List<FakeReaderContext> readerContexts = new ArrayList<>();

        SourceExecution(TextFileSource source, int parallelism, SourceCheckpoint restored) throws Exception {
            context = new RecordingEnumeratorContext<>(parallelism);
            enumerator = restored == null ? source.createEnumerator(context)
                    : source.restoreEnumerator(context, restored.enumerator());
            enumerator.start();
            for (int i = 0; i < parallelism; i++) {
                FakeReaderContext readerContext = new FakeReaderContext(i, parallelism);
                SourceReader<String, FileSplit> reader = source.createReader(readerContext);
                if (restored != null) {
                    // Reader state is redistributed on rescale: any subtask may take any split.
                    List<FileSplit> mine = new ArrayList<>();
                    for (int s = i; s < restored.readerSplits().size(); s += parallelism) {
                        mine.add(restored.readerSplits().get(s));
                    }
                    if (!mine.isEmpty()) {
                        reader.addSplits(mine);
                    }
                }
                reader.start();
                readers.add(reader);
                readerContexts.add(readerContext);
            }
        }

        /** One poll of one reader, forwarding its split request and the enumerator's answers. */
        void step(int subtask, List<String> output) throws Exception {
            SourceReader<String, FileSplit> reader = readers.get(subtask);
            InputStatus status = reader.pollNext(io.duraflow.api.source.ReaderOutput.of(output::add));
            assertThat(status).isNotEqualTo(InputStatus.END_OF_INPUT);
            FakeReaderContext readerContext = readerContexts.get(subtask);
            if (readerContext.outstandingRequests > 0) {
                readerContext.outstandingRequests--;
                enumerator.handleSplitRequest(subtask);
            }
            deliver();
        }

        /** A listing's period passed; the splits it hands to waiting readers reach them at once. */
        void list() {
            context.runAsyncWork();
            deliver();
        }

        /**
         * Assignments reach readers before the next checkpoint, so each split is in the enumerator's
         * or a reader's state (the runtime's coordinator keeps track of splits in flight instead).
         */
        private void deliver() {
            for (Event<FileSplit> event; (event = context.events.poll()) != null; ) {
                readers.get(event.subtask()).addSplits(List.of(event.split()));
            }
        }

        SourceCheckpoint checkpoint(long id, int outputSize) throws Exception {
            byte[] enumeratorState = enumerator.snapshotState(id);
            List<FileSplit> splits = new ArrayList<>();
            for (SourceReader<String, FileSplit> reader : readers) {
                splits.addAll(reader.snapshotState(id));
            }
            return new SourceCheckpoint(enumeratorState, splits, outputSize);
        }

        void crash() throws Exception {
            for (SourceReader<String, FileSplit> reader : readers) {
                reader.close();
            }
            enumerator.close();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void theWatchingSourceEmitsEveryLineOnceThroughCrashesAndRescales(int seed) throws Exception {
        Random random = new Random(seed);
        Path input = Files.createDirectory(dir.resolve("in"));
        TextFileSource source = TextFileSource.watching(input.toString(), Duration.ofSeconds(1), 1 + random.nextInt(8));
        List<String> published = new ArrayList<>();
        List<String> output = new ArrayList<>();
        SourceCheckpoint completed = null;
        SourceExecution execution = new SourceExecution(source, 1 + random.nextInt(3), null);
        int files = 0;
        for (long step = 1; step <= 400; step++) {
            int action = random.nextInt(100);
            if (action < 10) {
                publish(input, "f" + files++, random, published);
            } else if (action < 20) {
                execution.list();
            } else if (action < 85) {
                execution.step(random.nextInt(execution.readers.size()), output);
            } else if (action < 95) {
                SourceCheckpoint checkpoint = execution.checkpoint(step, output.size());
                if (random.nextBoolean()) {
                    completed = checkpoint;
                }
            } else {
                execution.crash();
                // Output after the restored checkpoint is discarded downstream (the sink never commits it).
                output.subList(completed == null ? 0 : completed.outputSize(), output.size()).clear();
                execution = new SourceExecution(source, 1 + random.nextInt(3), completed);
            }
        }
        execution.list();
        for (int round = 0; round < 10_000; round++) {
            execution.step(round % execution.readers.size(), output);
        }
        assertThat(output).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(published);
    }

    private static void publish(Path directory, String name, Random random, List<String> published) throws IOException {
        StringBuilder content = new StringBuilder();
        int lines = random.nextInt(4);
        for (int i = 0; i < lines; i++) {
            String line = name + "-" + i;
            content.append(line).append(random.nextBoolean() ? "\n" : "\r\n");
            published.add(line);
        }
        Path hidden = Files.writeString(directory.resolve("." + name), content);
        Files.move(hidden, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    private record Context(int subtaskIndex, int parallelism, int attemptNumber) implements SinkContext {
        @Override
        public String jobId() {
            return "sim";
        }
    }

    /** A completed checkpoint of the sink job: the input position and the sink's union state. */
    private record SinkCheckpoint(int position, List<PendingPart> committables) {}

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void theFileSinkCommitsEveryRecordOnceThroughCrashesLostNotificationsAndRescales(int seed) throws Exception {
        Random random = new Random(seed);
        Path output = dir.resolve("out");
        FileSink<Integer> sink = FileSink.<Integer>of(output.toString()).withMaxPartSizeBytes(1 + random.nextInt(40));
        int records = 100;
        int attempt = 0;
        SinkCheckpoint completed = new SinkCheckpoint(0, List.of());
        List<CommittingSinkDriver<Integer, PendingPart>> drivers = open(sink, 1 + random.nextInt(3), attempt, completed);
        int position = 0;
        long checkpointId = 0;
        while (true) { // until the final checkpoint, taken at the end of input, completed
            int action = random.nextInt(100);
            if (action < 80 && position < records) {
                drivers.get(random.nextInt(drivers.size())).write(position++);
            } else if (action < 95 || position == records) {
                checkpointId++;
                List<PendingPart> union = new ArrayList<>();
                for (CommittingSinkDriver<Integer, PendingPart> driver : drivers) {
                    union.addAll(driver.snapshotState(checkpointId));
                }
                if (random.nextInt(4) > 0) {
                    completed = new SinkCheckpoint(position, union);
                    for (CommittingSinkDriver<Integer, PendingPart> driver : drivers) {
                        if (random.nextInt(3) > 0) { // else: the notification is lost
                            driver.notifyCheckpointComplete(checkpointId);
                        }
                    }
                    if (position == records) {
                        break;
                    }
                }
            } else {
                for (CommittingSinkDriver<Integer, PendingPart> driver : drivers) {
                    driver.close();
                }
                attempt++;
                position = completed.position();
                drivers = open(sink, 1 + random.nextInt(4), attempt, completed);
            }
        }
        // The final checkpoint completed; a subtask that missed its notification commits on the next
        // restore, which a finished job does not have: so every subtask must have heard of it here.
        for (CommittingSinkDriver<Integer, PendingPart> driver : drivers) {
            driver.notifyCheckpointComplete(checkpointId);
            driver.close();
        }
        List<Integer> committed = new ArrayList<>();
        for (Path part : FileSplitPlanner.listVisibleFiles(output)) {
            Files.readString(part).lines().map(Integer::valueOf).forEach(committed::add);
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            expected.add(i);
        }
        assertThat(committed).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(expected);
        try (Stream<Path> files = Files.list(output)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".inprogress")))
                    .as("in-progress files left, seed %d", seed).isEmpty();
        }
    }

    private static List<CommittingSinkDriver<Integer, PendingPart>> open(FileSink<Integer> sink, int parallelism,
            int attempt, SinkCheckpoint restored) throws Exception {
        List<CommittingSinkDriver<Integer, PendingPart>> drivers = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            drivers.add(CommittingSinkDriver.open(sink, new Context(i, parallelism, attempt),
                    restored.committables()));
        }
        return drivers;
    }
}
