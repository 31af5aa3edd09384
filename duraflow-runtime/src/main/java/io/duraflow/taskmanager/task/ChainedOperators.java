package io.duraflow.taskmanager.task;

import com.google.protobuf.ByteString;
import io.duraflow.api.NonRetriableException;
import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.source.ReaderOutput;
import io.duraflow.api.functions.FilterFunction;
import io.duraflow.api.functions.FlatMapFunction;
import io.duraflow.api.functions.MapFunction;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.rpc.proto.CollectedResult;

/** The record-at-a-time operators that run chained to their input. */
public final class ChainedOperators {
    private ChainedOperators() {}

    public static Downstream map(MapFunction<Object, Object> function, Downstream out) {
        return new Downstream() {
            @Override
            public void push(Object record) throws Exception {
                out.push(function.map(record));
            }

            @Override
            public void processWatermark(long watermark) throws Exception {
                out.processWatermark(watermark);
            }

            @Override
            public SnapshotAvailability snapshotAvailability(long checkpointId) {
                return CheckpointAvailabilityProvider.availabilityOf(function, checkpointId);
            }
        };
    }

    /** Passes records and watermarks on unchanged (an operator that has nothing to do in this mode). */
    public static Downstream passThrough(Downstream out) {
        return new Downstream() {
            @Override
            public void push(Object record) throws Exception {
                out.push(record);
            }

            @Override
            public void processWatermark(long watermark) throws Exception {
                out.processWatermark(watermark);
            }
        };
    }

    public static Downstream filter(FilterFunction<Object> function, Downstream out) {
        return new Downstream() {
            @Override
            public void push(Object record) throws Exception {
                if (function.filter(record)) {
                    out.push(record);
                }
            }

            @Override
            public void processWatermark(long watermark) throws Exception {
                out.processWatermark(watermark);
            }

            @Override
            public SnapshotAvailability snapshotAvailability(long checkpointId) {
                return CheckpointAvailabilityProvider.availabilityOf(function, checkpointId);
            }
        };
    }

    public static Downstream flatMap(FlatMapFunction<Object, Object> function, Downstream out) {
        return new Downstream() {
            @Override
            public SnapshotAvailability snapshotAvailability(long checkpointId) {
                return CheckpointAvailabilityProvider.availabilityOf(function, checkpointId);
            }

            private final Collector<Object> collector = record -> {
                try {
                    out.push(record);
                } catch (Exception e) {
                    throw ChainException.wrap(e);
                }
            };

            @Override
            public void push(Object record) throws Exception {
                try {
                    function.flatMap(record, collector);
                } catch (ChainException e) {
                    throw (Exception) e.getCause();
                }
            }

            @Override
            public void processWatermark(long watermark) throws Exception {
                out.processWatermark(watermark);
            }
        };
    }

    /**
     * What a source task's reader emits into when its records need no event time (batch, or a
     * source without a watermark strategy): each record counts as read and goes into the chain;
     * splits and timestamps change nothing.
     */
    public static ReaderOutput<Object> sourceOutput(Downstream out, TaskCounters counters) {
        return ReaderOutput.of(record -> {
            counters.recordsIn++;
            try {
                out.push(record);
            } catch (Exception e) {
                throw ChainException.wrap(e);
            }
        });
    }

    /** Lets checked exceptions of downstream operators cross a user's Collector call. */
    public static final class ChainException extends RuntimeException {
        private ChainException(Exception cause) {
            super(cause);
        }

        /** {@code e} itself if unchecked, else {@code e} wrapped; for a catch block that must rethrow unchecked. */
        public static RuntimeException wrap(Exception e) {
            return e instanceof RuntimeException unchecked ? unchecked : new ChainException(e);
        }
    }

    public static Downstream sink(SinkWriter<Object> writer, TaskCounters counters) {
        return new Downstream() {
            @Override
            public void push(Object record) throws Exception {
                counters.recordsOut++;
                writer.write(record);
            }

            @Override
            public void endInput() throws Exception {
                writer.finish();
            }

            @Override
            public SnapshotAvailability snapshotAvailability(long checkpointId) {
                return writer.isSnapshotAvailable(checkpointId);
            }

            @Override
            public void close() throws Exception {
                writer.close();
            }
        };
    }

    /** Buffers records for the client: varint length | bytes, up to a byte limit. */
    public static final class CollectOperator implements Downstream {
        public final String name;
        private final TypeSerializer<Object> serializer;
        private final long maxBytes;
        private final TaskCounters counters;
        public final DataWriter buffer = new DataWriter(4096);
        private final DataWriter scratch = new DataWriter(256);
        public long records;

        public CollectOperator(String name, TypeSerializer<Object> serializer, long maxBytes, TaskCounters counters) {
            this.name = name;
            this.serializer = serializer;
            this.maxBytes = maxBytes;
            this.counters = counters;
        }

        /** What this operator collected, for the FINISHED report of subtask {@code subtask}. */
        public CollectedResult result(int subtask) {
            return CollectedResult.newBuilder().setName(name).setSubtask(subtask).setRecords(records)
                    .setData(ByteString.copyFrom(buffer.buffer(), 0, buffer.position())).build();
        }

        @Override
        public void push(Object record) {
            scratch.reset();
            serializer.write(record, scratch);
            buffer.writeVarInt(scratch.position());
            buffer.writeBytes(scratch.buffer(), 0, scratch.position());
            records++;
            counters.recordsOut++;
            if (buffer.position() > maxBytes) {
                // The same records come again on every attempt: fail at once, not after every restart.
                throw new NonRetriableException("the collected result '" + name + "' is larger than collect.max-bytes ("
                        + maxBytes + " bytes); write large results to a file sink instead");
            }
        }
    }
}
