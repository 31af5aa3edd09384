package io.duraflow.plan;

/** When the consumer of an exchange may read what the producer writes. */
public enum ExchangeMode {
    /**
     * The producer writes a complete result partition (files) that consumers read after it
     * finished: stages run one after another and a failed consumer re-reads the partition. Only
     * here may the producer pre-aggregate (the combiner), because a partial is final per file.
     */
    BLOCKING,
    /** Records flow to running consumers as they are produced (streaming; not executed yet). */
    PIPELINED
}
