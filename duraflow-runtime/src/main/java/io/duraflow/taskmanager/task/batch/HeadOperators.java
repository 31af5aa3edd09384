package io.duraflow.taskmanager.task.batch;

import io.duraflow.api.functions.JoinFunction;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.spill.SpillingAggregator;
import io.duraflow.spill.SpillingHashJoin;
import io.duraflow.api.dag.KeyedAggregation;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.ExchangeOutputs;
import io.duraflow.taskmanager.task.HeadOperator;

/** The batch operators that start a non-source chain by reading the exchange: they see the whole input. */
final class HeadOperators {
    private static final Logger LOG = LoggerFactory.getLogger(HeadOperators.class);

    private HeadOperators() {}

    /** Merges (key, partial) records per key, spilling beyond the budget, then emits results. */
    static final class Aggregate implements HeadOperator, AutoCloseable {
        private final KeyedAggregation<Object, Object, Object, Object> aggregation;
        private final SpillingAggregator<Object, Object> aggregator;
        private final Downstream out;

        Aggregate(TypeSerializer<Object> keyType, TypeSerializer<Object> accType,
                KeyedAggregation<Object, Object, Object, Object> aggregation, long budgetBytes, Path spillDirectory,
                Downstream out) {
            this.aggregation = aggregation;
            this.aggregator = new SpillingAggregator<>(keyType, accType, aggregation::merge, budgetBytes, spillDirectory);
            this.out = out;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void process(int input, Object record, int serializedBytes) throws Exception {
            Tuple2<Object, Object> partial = (Tuple2<Object, Object>) record;
            aggregator.add(partial.f0(), partial.f1(), serializedBytes);
        }

        @Override
        public void endInput(int input) throws Exception {
            aggregator.finish((key, accumulator) -> out.push(aggregation.result(key, accumulator)));
        }

        @Override
        public void close() throws Exception {
            aggregator.close();
        }
    }

    /**
     * Hash join: the left input (input 0) is the build side, read first; every right record
     * probes it. A build side beyond the budget spills (see {@link SpillingHashJoin}), so put the
     * smaller input on the left for speed, not for success.
     */
    static final class Join implements HeadOperator, AutoCloseable {
        private final KeySelector<Object, Object> leftKey;
        private final KeySelector<Object, Object> rightKey;
        private final SpillingHashJoin<Object, Object, Object> join;
        private final SpillingHashJoin.MatchConsumer<Object, Object> emit;

        Join(KeySelector<Object, Object> leftKey, KeySelector<Object, Object> rightKey, TypeSerializer<Object> keyType,
                TypeSerializer<Object> leftType, TypeSerializer<Object> rightType,
                JoinFunction<Object, Object, Object> function, long budgetBytes, Path spillDirectory, Downstream out) {
            this.leftKey = leftKey;
            this.rightKey = rightKey;
            this.join = new SpillingHashJoin<>(keyType, leftType, rightType, budgetBytes, spillDirectory);
            this.emit = (left, right) -> out.push(function.join(left, right));
        }

        @Override
        public void process(int input, Object record, int serializedBytes) throws Exception {
            if (input == 0) {
                join.build(ExchangeOutputs.requireKey(leftKey.getKey(record), "join"), record, serializedBytes);
            } else {
                join.probe(ExchangeOutputs.requireKey(rightKey.getKey(record), "join"), record, emit);
            }
        }

        @Override
        public void endInput(int input) throws Exception {
            if (input == 0) {
                join.endBuild();
            } else {
                join.finish(emit);
                if (join.spilledPartitions() > 0) {
                    LOG.info("Join spilled {} bytes in {} partitions (deepest level {}, {} joined in chunks)",
                            join.spilledBytes(), join.spilledPartitions(), join.deepestLevel(),
                            join.chunkedPartitions());
                }
            }
        }

        @Override
        public void close() {
            join.close();
        }
    }
}
