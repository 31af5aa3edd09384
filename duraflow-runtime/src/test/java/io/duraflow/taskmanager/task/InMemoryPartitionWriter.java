package io.duraflow.taskmanager.task;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.exchange.PartitionSummary;
import io.duraflow.exchange.ResultPartitionWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Keeps written records per subpartition in memory; for testing what operators write. */
public final class InMemoryPartitionWriter implements ResultPartitionWriter {
    enum State { OPEN, FINISHED, ABORTED }

    final List<List<byte[]>> subpartitions = new ArrayList<>();
    State state = State.OPEN;

    public InMemoryPartitionWriter(int count) {
        for (int i = 0; i < count; i++) {
            subpartitions.add(new ArrayList<>());
        }
    }

    @Override
    public int subpartitionCount() {
        return subpartitions.size();
    }

    @Override
    public void write(int subpartition, byte[] record, int offset, int length) {
        if (state != State.OPEN) {
            throw new IllegalStateException("writer is " + state);
        }
        subpartitions.get(subpartition).add(Arrays.copyOfRange(record, offset, offset + length));
    }

    public <T> List<T> read(int subpartition, TypeSerializer<T> type) {
        List<T> records = new ArrayList<>();
        for (byte[] bytes : subpartitions.get(subpartition)) {
            DataReader reader = new DataReader();
            reader.reset(bytes, 0, bytes.length);
            records.add(type.read(reader));
        }
        return records;
    }

    @Override
    public PartitionSummary finish() {
        state = State.FINISHED;
        long[] bytes = new long[subpartitions.size()];
        long[] counts = new long[subpartitions.size()];
        for (int i = 0; i < bytes.length; i++) {
            counts[i] = subpartitions.get(i).size();
            bytes[i] = subpartitions.get(i).stream().mapToLong(r -> r.length).sum();
        }
        return new PartitionSummary(bytes, counts, 0);
    }

    @Override
    public void abort() {
        state = State.ABORTED;
    }

    @Override
    public void close() {
        if (state == State.OPEN) {
            abort();
        }
    }
}
