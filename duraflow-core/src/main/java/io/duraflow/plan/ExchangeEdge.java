package io.duraflow.plan;

import io.duraflow.api.dag.PlanNode;

/**
 * An exchange between two vertices. The producer writes {@code subpartitions} (the consumer's
 * maximum parallelism) subpartitions; each consumer task reads a contiguous range.
 *
 * @param id            index of the edge in {@link JobGraph#edges()}
 * @param producer      producing vertex id
 * @param consumer      consuming vertex id
 * @param producerNode  the node whose output enters the exchange
 * @param consumerNode  the node that reads the exchange
 * @param inputIndex    which input of the consumer node (0, or 1 for the right side of a join)
 * @param mode          when the consumer reads: after the producer finished, or as it produces
 * @param strategy      how records are spread over the consumer's subpartitions
 * @param combine       whether the producer pre-aggregates (keyed aggregations over a blocking
 *                      hash exchange only, see {@link ExchangeMode#BLOCKING})
 */
public record ExchangeEdge(int id, int producer, int consumer, PlanNode producerNode, PlanNode consumerNode,
        int inputIndex, ExchangeMode mode, ShipStrategy strategy, boolean combine) {
    public ExchangeEdge {
        if (combine && (mode != ExchangeMode.BLOCKING || strategy != ShipStrategy.HASH)) {
            throw new IllegalArgumentException("edge " + id + ": a combiner needs a blocking hash exchange, not "
                    + mode + " " + strategy);
        }
    }
}
