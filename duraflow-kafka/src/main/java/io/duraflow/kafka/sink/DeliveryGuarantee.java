package io.duraflow.kafka.sink;

/** What a {@link KafkaSink} promises about each record it is given. */
public enum DeliveryGuarantee {
    /**
     * Records are sent as they come and never waited for: a failure may lose those still in the
     * producer's buffers, and a restore from a checkpoint writes the records after it again.
     */
    NONE,
    /**
     * Every checkpoint waits until all records sent before its barrier are acknowledged by the
     * broker, so none is lost; a restore writes the records after the checkpoint again
     * (duplicates).
     */
    AT_LEAST_ONCE,
    /**
     * Records go into a Kafka transaction per subtask and checkpoint, committed when the
     * checkpoint completes: a {@code read_committed} consumer sees every record exactly once,
     * one checkpoint interval late. Needs a transactional id prefix unique per job.
     */
    EXACTLY_ONCE
}
