package io.duraflow.plan;

/** How records of an exchange are spread over the consumer's subpartitions. */
public enum ShipStrategy {
    /** By key group of the record's key: all records of a key meet in one consumer task. */
    HASH,
    /** Round-robin. */
    REBALANCE,
    /** Producer task i to consumer task i (same parallelism), without redistribution. */
    FORWARD,
    /** Every record to every subpartition. */
    BROADCAST
}
