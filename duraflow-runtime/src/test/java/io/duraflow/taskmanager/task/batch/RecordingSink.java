package io.duraflow.taskmanager.task.batch;

import io.duraflow.api.sink.Sink;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A sink whose writers count what is done to them; it can fail in writing or in creating a writer. */
final class RecordingSink implements Sink<Long> {
    /** What happened to one writer. */
    static final class Calls {
        int writes;
        int finishes;
        int aborts;
        int closes;
    }

    final List<Calls> writers = new ArrayList<>();
    private final boolean failOnWrite;
    /** Shared by the sinks of one test: creating the writer numbered {@code failingWriter} throws. */
    private final AtomicInteger created;
    private final int failingWriter;

    private RecordingSink(boolean failOnWrite, AtomicInteger created, int failingWriter) {
        this.failOnWrite = failOnWrite;
        this.created = created;
        this.failingWriter = failingWriter;
    }

    static RecordingSink working() {
        return new RecordingSink(false, new AtomicInteger(), -1);
    }

    static RecordingSink failingOnWrite() {
        return new RecordingSink(true, new AtomicInteger(), -1);
    }

    /** A sink of a pair whose second created writer (whichever sink creates it) fails. */
    static RecordingSink[] pairWhoseSecondWriterFails() {
        AtomicInteger created = new AtomicInteger();
        return new RecordingSink[] {new RecordingSink(false, created, 1), new RecordingSink(false, created, 1)};
    }

    @Override
    public SinkWriter<Long> createWriter(SinkContext context) {
        if (created.getAndIncrement() == failingWriter) {
            throw new IllegalStateException("cannot create writer");
        }
        Calls calls = new Calls();
        writers.add(calls);
        return new SinkWriter<>() {
            @Override
            public void write(Long record) {
                calls.writes++;
                if (failOnWrite) {
                    throw new IllegalStateException("write failed");
                }
            }

            @Override
            public void finish() {
                calls.finishes++;
            }

            @Override
            public void abort() {
                calls.aborts++;
            }

            @Override
            public void close() {
                calls.closes++;
            }
        };
    }

    @Override
    public String description() {
        return "recording";
    }
}
