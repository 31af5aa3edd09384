package io.duraflow.api.connectors;

import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;

/**
 * Drives a source's enumerator and readers in one thread, the way the runtime would: a reader's
 * split request reaches the enumerator, whose answer is delivered to the reader the next time it
 * says NOTHING_AVAILABLE.
 */
final class SourceHarness {
    private SourceHarness() {}

    /** Reads everything with one reader; records come in split order. */
    static <T, S extends SourceSplit> List<T> readAll(Source<T, S> source) throws Exception {
        RecordingEnumeratorContext<S> context = new RecordingEnumeratorContext<>(1);
        try (SplitEnumerator<S> enumerator = source.createEnumerator(context)) {
            enumerator.start();
            return readAll(source, enumerator, context, 1).get(0);
        }
    }

    /** Reads everything with {@code parallelism} readers polled in turn; one record list per reader. */
    static <T, S extends SourceSplit> List<List<T>> readAll(Source<T, S> source, SplitEnumerator<S> enumerator,
            RecordingEnumeratorContext<S> context, int parallelism) throws Exception {
        List<SourceReader<T, S>> readers = new ArrayList<>();
        List<FakeReaderContext> readerContexts = new ArrayList<>();
        List<List<T>> outputs = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            FakeReaderContext readerContext = new FakeReaderContext(i, parallelism);
            SourceReader<T, S> reader = source.createReader(readerContext);
            reader.start();
            readers.add(reader);
            readerContexts.add(readerContext);
            outputs.add(new ArrayList<>());
        }
        boolean[] ended = new boolean[parallelism];
        int running = parallelism;
        for (int step = 0; running > 0; step++) {
            if (step > 10_000_000) {
                throw new AssertionError("readers do not finish");
            }
            for (int i = 0; i < parallelism; i++) {
                if (ended[i]) {
                    continue;
                }
                SourceReader<T, S> reader = readers.get(i);
                InputStatus status = reader.pollNext(io.duraflow.api.source.ReaderOutput.of(outputs.get(i)::add));
                if (status == InputStatus.END_OF_INPUT) {
                    ended[i] = true;
                    running--;
                    reader.close();
                } else if (status == InputStatus.NOTHING_AVAILABLE) {
                    FakeReaderContext readerContext = readerContexts.get(i);
                    if (readerContext.outstandingRequests == 0) {
                        throw new AssertionError("reader " + i + " waits for splits it never asked for");
                    }
                    readerContext.outstandingRequests--;
                    enumerator.handleSplitRequest(i);
                    deliver(context, reader, i);
                }
            }
        }
        return outputs;
    }

    private static <T, S extends SourceSplit> void deliver(RecordingEnumeratorContext<S> context,
            SourceReader<T, S> reader, int subtask) {
        Event<S> event = context.events.poll();
        if (event == null || event.subtask != subtask) {
            throw new AssertionError("enumerator did not answer subtask " + subtask + ": " + event);
        }
        if (event.split == null) {
            reader.notifyNoMoreSplits();
        } else {
            reader.addSplits(List.of(event.split));
        }
    }

    /** An assignment (split != null) or a no-more-splits signal. */
    record Event<S>(S split, int subtask) {}

    /** Records what the enumerator says, in order. */
    static final class RecordingEnumeratorContext<S extends SourceSplit> implements SplitEnumeratorContext<S> {
        final ArrayDeque<Event<S>> events = new ArrayDeque<>();
        final List<S> assigned = new ArrayList<>();
        private final int parallelism;

        RecordingEnumeratorContext(int parallelism) {
            this.parallelism = parallelism;
        }

        @Override
        public int parallelism() {
            return parallelism;
        }

        @Override
        public void assignSplit(S split, int subtask) {
            assigned.add(split);
            events.add(new Event<>(split, subtask));
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            events.add(new Event<>(null, subtask));
        }

        /** Periodic work the enumerator asked for, run by the test with {@link #runAsyncWork()}. */
        final List<Runnable> asyncWork = new ArrayList<>();

        @Override
        public <T> void callAsync(Callable<T> work, BiConsumer<T, Throwable> handler, long initialDelayMs,
                long periodMs) {
            asyncWork.add(() -> {
                T result;
                try {
                    result = work.call();
                } catch (Exception e) {
                    handler.accept(null, e);
                    return;
                }
                handler.accept(result, null);
            });
        }

        /** Runs every periodic work once, as if its period passed. */
        void runAsyncWork() {
            for (Runnable work : List.copyOf(asyncWork)) {
                work.run();
            }
        }
    }

    static final class FakeReaderContext implements SourceReaderContext {
        private final int subtask;
        private final int parallelism;
        int outstandingRequests;

        FakeReaderContext(int subtask, int parallelism) {
            this.subtask = subtask;
            this.parallelism = parallelism;
        }

        @Override
        public int subtaskIndex() {
            return subtask;
        }

        @Override
        public int parallelism() {
            return parallelism;
        }

        @Override
        public void sendSplitRequest() {
            outstandingRequests++;
        }
    }
}
