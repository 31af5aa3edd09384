package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;

/**
 * The event-time timestamp of the record a streaming chain is pushing, one per task: whoever
 * puts a record into the chain sets it first (the input handler from the wire, a source from its
 * split's strategy), operators that emit with a time of their own set it before they emit (a
 * timestamp assigner, an event-time timer), and every other operator leaves it alone, so a record
 * keeps its input's timestamp through maps and filters as in Flink. Pushes are synchronous on the
 * task thread, so the value belongs to the record in flight.
 */
final class RecordTime {
    long timestamp = TimestampAssigner.NO_TIMESTAMP;

    /**
     * Writes a record as {@code type} does, after the chain's current timestamp (8 bytes): how a
     * job with event time ships records on pipelined edges. Reading is the input handler's (it
     * reads records ahead in batches, so it keeps their timestamps apart).
     */
    TypeSerializer<Object> writerOf(TypeSerializer<Object> type) {
        return new TypeSerializer<>() {
            @Override
            public void write(Object value, DataWriter out) {
                out.writeLong(timestamp);
                type.write(value, out);
            }

            @Override
            public Object read(DataReader in) {
                throw new UnsupportedOperationException("timestamped records are read by the input handler");
            }

            @Override
            public String description() {
                return "timestamped(" + type.description() + ")";
            }
        };
    }
}
