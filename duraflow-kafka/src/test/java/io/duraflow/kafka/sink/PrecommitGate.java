package io.duraflow.kafka.sink;

import io.duraflow.api.sink.Committer;
import io.duraflow.api.sink.CommittingSinkWriter;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.TwoPhaseCommittingSink;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link KafkaSink} whose checkpoints a test can hold between the sink's precommit and the
 * checkpoint's completion: while the gate is closed, writing a precommitted transaction's
 * committable into the checkpoint waits, so the transaction is flushed and open and the checkpoint
 * cannot complete. A TaskManager stopped then dies inside the checkpoint, the moment exactly-once
 * sinks get wrong most easily. One gate per JVM (the in-process cluster runs the tasks in the
 * test's JVM); a test closes it and opens it again itself.
 */
final class PrecommitGate<T> implements TwoPhaseCommittingSink<T, KafkaCommittable> {
    private static volatile boolean closed;
    private static final Object LOCK = new Object();
    private static final AtomicInteger HELD = new AtomicInteger();

    private final KafkaSink<T> sink;

    PrecommitGate(KafkaSink<T> sink) {
        this.sink = sink;
    }

    /** Holds every committable written into a checkpoint from now on, until {@link #open}. */
    static void close() {
        HELD.set(0);
        closed = true;
    }

    static void open() {
        synchronized (LOCK) {
            closed = false;
            LOCK.notifyAll();
        }
    }

    /** How many committables (transactions precommitted) the closed gate holds now or held. */
    static int held() {
        return HELD.get();
    }

    @Override
    public CommittingSinkWriter<T, KafkaCommittable> createWriter(SinkContext context) {
        return sink.createWriter(context);
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(SinkContext context) throws Exception {
        return sink.createCommitter(context);
    }

    @Override
    public void cleanUpLeftovers(SinkContext context, List<KafkaCommittable> restoredCommittables,
            Set<String> restoredJobIds) throws Exception {
        sink.cleanUpLeftovers(context, restoredCommittables, restoredJobIds);
    }

    @Override
    public TypeSerializer<KafkaCommittable> committableSerializer() {
        TypeSerializer<KafkaCommittable> inner = sink.committableSerializer();
        return new TypeSerializer<>() {
            @Override
            public void write(KafkaCommittable value, DataWriter out) {
                awaitOpen();
                inner.write(value, out);
            }

            @Override
            public KafkaCommittable read(DataReader in) {
                return inner.read(in);
            }

            @Override
            public String description() {
                return inner.description();
            }
        };
    }

    /** Waits while the gate is closed; at most a minute, so that a test gone wrong does not hang. */
    private static void awaitOpen() {
        if (!closed) {
            return;
        }
        HELD.incrementAndGet();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        synchronized (LOCK) {
            while (closed && System.nanoTime() < deadline) {
                try {
                    LOCK.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the test held the checkpoint", e);
                }
            }
        }
    }

    @Override
    public String description() {
        return "gated " + sink.description();
    }
}
