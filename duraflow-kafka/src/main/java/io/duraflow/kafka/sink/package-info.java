/**
 * {@link io.duraflow.kafka.sink.KafkaSink}: writes a flow to Kafka with no guarantee, at least once
 * (flushed at every checkpoint) or exactly once (a Kafka transaction per subtask and checkpoint,
 * committed when the checkpoint completes). {@link io.duraflow.kafka.sink.KafkaRecordSerializer}
 * turns records into Kafka records.
 */
package io.duraflow.kafka.sink;
