package io.duraflow.plan;

/** How records of an exchange are spread over the consumer's subpartitions. */
public enum ShipStrategy {
    /** By key group of the record's key: all records of a key meet in one consumer task. */
    HASH,
    /** Round-robin. */
    REBALANCE
}
