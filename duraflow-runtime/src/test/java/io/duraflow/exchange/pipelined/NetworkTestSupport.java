package io.duraflow.exchange.pipelined;

import io.duraflow.exchange.Frames;
import io.duraflow.exchange.RecordIterator;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** Records of 8-byte longs, decoding of buffers, and a manual nano clock for the network tests. */
final class NetworkTestSupport {
    private NetworkTestSupport() {
    }

    static byte[] longRecord(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    static void writeLong(PipelinedResultPartition partition, int subpartition, long value) throws Exception {
        byte[] record = longRecord(value);
        partition.write(subpartition, record, 0, record.length);
    }

    /** Decodes a buffer of 8-byte long records and recycles it. */
    static List<Long> decodeAndRecycle(NetworkBuffer buffer) {
        List<Long> values = new ArrayList<>();
        RecordIterator records = Frames.records(buffer.memory(), 0, buffer.size(), "test buffer");
        while (records.hasNext()) {
            values.add(records.next().readLong());
        }
        buffer.recycle();
        return values;
    }

    static PipelinedPartitionSettings settings(int buffersPerSubpartition, int overdraft, Duration timeout) {
        return new PipelinedPartitionSettings(buffersPerSubpartition, overdraft, timeout);
    }

    /** A nanosecond clock that moves only when the test moves it. */
    static final class ManualNanoClock implements LongSupplier {
        private final AtomicLong now = new AtomicLong(1_000_000_000L);

        void advance(Duration duration) {
            now.addAndGet(duration.toNanos());
        }

        @Override
        public long getAsLong() {
            return now.get();
        }
    }
}
