package io.duraflow.kafka.sink;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;

/**
 * A Kafka transaction that holds one subtask's records of one checkpoint, flushed and waiting to be
 * committed: what an exactly-once {@link KafkaSink} stores in the checkpoint. The producer id and
 * epoch let any process commit it, also after the producer that wrote it died.
 *
 * <pre>
 * version (byte, 1) | transactional id (string) | producer id (var long) | epoch (var int)
 * </pre>
 */
public record KafkaCommittable(String transactionalId, long producerId, short epoch) {
    public KafkaCommittable {
        if (transactionalId == null || transactionalId.isEmpty()) {
            throw new IllegalArgumentException("a committable needs a transactional id");
        }
        if (producerId < 0 || epoch < 0) {
            throw new IllegalArgumentException("transaction " + transactionalId + " has no producer id and epoch ("
                    + producerId + ", " + epoch + "): it was never initialized");
        }
    }

    @Override
    public String toString() {
        return transactionalId + " (producer " + producerId + ", epoch " + epoch + ")";
    }

    static final TypeSerializer<KafkaCommittable> SERIALIZER = new TypeSerializer<>() {
        private static final byte VERSION = 1;

        @Override
        public void write(KafkaCommittable value, DataWriter out) {
            out.writeByte(VERSION);
            out.writeString(value.transactionalId());
            out.writeVarLong(value.producerId());
            out.writeVarInt(value.epoch());
        }

        @Override
        public KafkaCommittable read(DataReader in) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new CorruptDataException("a Kafka sink committable has version " + version + ", expected "
                        + VERSION + ": the checkpoint was written by another version of Duraflow or is corrupt");
            }
            String id = in.readString();
            long producerId = in.readVarLong();
            int epoch = in.readVarInt();
            if (epoch > Short.MAX_VALUE) {
                throw new CorruptDataException("a Kafka sink committable of " + id + " has epoch " + epoch
                        + ", beyond any Kafka producer epoch: the checkpoint is corrupt");
            }
            return new KafkaCommittable(id, producerId, (short) epoch);
        }

        @Override
        public String description() {
            return "kafka-committable-v1";
        }
    };
}
