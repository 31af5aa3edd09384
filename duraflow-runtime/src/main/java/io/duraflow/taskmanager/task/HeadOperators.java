package io.duraflow.taskmanager.task;

import io.duraflow.api.functions.JoinFunction;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.operators.SpillingAggregator;
import io.duraflow.plan.KeyedAggregation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Operators that start a non-source chain by reading the exchange. */
final class HeadOperators {
    private HeadOperators() {}

    static HeadOperator passThrough(Downstream out) {
        return new HeadOperator() {
            @Override
            public void process(int input, Object record, int serializedBytes) throws Exception {
                out.push(record);
            }

            @Override
            public void endInput(int input) {}
        };
    }

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
     * Hash join: the left input (input 0) is read into memory first, then every right record
     * probes it. Put the smaller input on the left.
     */
    static final class Join implements HeadOperator {
        private final KeySelector<Object, Object> leftKey;
        private final KeySelector<Object, Object> rightKey;
        private final JoinFunction<Object, Object, Object> function;
        private final Downstream out;
        private final long budgetBytes;
        private final Map<Object, List<Object>> table = new HashMap<>();
        private long estimatedBytes;

        Join(KeySelector<Object, Object> leftKey, KeySelector<Object, Object> rightKey,
                JoinFunction<Object, Object, Object> function, long budgetBytes, Downstream out) {
            this.leftKey = leftKey;
            this.rightKey = rightKey;
            this.function = function;
            this.budgetBytes = budgetBytes;
            this.out = out;
        }

        @Override
        public void process(int input, Object record, int serializedBytes) throws Exception {
            if (input == 0) {
                table.computeIfAbsent(leftKey.getKey(record), k -> new ArrayList<>(1)).add(record);
                estimatedBytes += serializedBytes + 48L;
                if (estimatedBytes > budgetBytes) {
                    throw new IllegalStateException("the left (build) side of the join holds more than "
                            + "taskmanager.memory.aggregation-budget (" + budgetBytes + " bytes) in one task; raise the "
                            + "budget, raise the join's parallelism, or put the smaller input on the left");
                }
                return;
            }
            List<Object> matches = table.get(rightKey.getKey(record));
            if (matches != null) {
                for (Object left : matches) {
                    out.push(function.join(left, record));
                }
            }
        }

        @Override
        public void endInput(int input) {
            if (input == 1) {
                table.clear();
            }
        }
    }
}
