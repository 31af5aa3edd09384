package io.duraflow.api.dag;

import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.functions.FilterFunction;
import io.duraflow.api.functions.FlatMapFunction;
import io.duraflow.api.functions.JoinFunction;
import io.duraflow.api.functions.KeyedCoProcessFunction;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.functions.MapFunction;
import io.duraflow.api.functions.OutputTag;
import io.duraflow.api.sink.Sink;
import io.duraflow.api.source.Source;
import io.duraflow.api.types.TypeSerializer;

/** What a {@link PlanNode} does. */
public sealed interface Operation {
    /** A short word for the fingerprint and for logs. */
    String kind();

    /** Extra text that identifies the configuration, for the fingerprint. */
    default String detail() {
        return "";
    }

    /**
     * Reads a source; with a {@code watermarks} strategy (else null) its records get timestamps
     * and each split's watermarks, combined per reader.
     */
    record SourceOp(Source<?, ?> source, WatermarkStrategy<Object> watermarks) implements Operation {
        public SourceOp(Source<?, ?> source) {
            this(source, null);
        }

        public String kind() {
            return "source";
        }

        public String detail() {
            return watermarks == null ? source.description() : source.description() + "," + watermarks.description();
        }
    }

    /**
     * Gives each record a timestamp and emits watermarks from them, per subtask, in place of the
     * ones from upstream (which it swallows, except the end of time).
     */
    record TimestampsAndWatermarksOp(WatermarkStrategy<Object> strategy) implements Operation {
        public String kind() {
            return "timestampsAndWatermarks";
        }

        public String detail() {
            return strategy.description();
        }
    }

    record MapOp(MapFunction<Object, Object> function) implements Operation {
        public String kind() {
            return "map";
        }
    }

    record FlatMapOp(FlatMapFunction<Object, Object> function) implements Operation {
        public String kind() {
            return "flatMap";
        }
    }

    record FilterOp(FilterFunction<Object> function) implements Operation {
        public String kind() {
            return "filter";
        }
    }

    /** Redistributes records round-robin over the next vertex's tasks. */
    record RebalanceOp() implements Operation {
        public String kind() {
            return "rebalance";
        }
    }

    /** Groups by key and folds each group into one result; pre-aggregates before the exchange. */
    record KeyedAggregateOp(KeySelector<Object, Object> keySelector, TypeSerializer<Object> keyType,
            KeyedAggregation<Object, Object, Object, Object> aggregation, TypeSerializer<Object> accumulatorType)
            implements Operation {
        public String kind() {
            return "keyedAggregate";
        }

        public String detail() {
            return "key=" + keyType.description() + ",acc=" + accumulatorType.description();
        }
    }

    /** Processes each record with keyed state and timers, scoped to the record's key. */
    record KeyedProcessOp(KeySelector<Object, Object> keySelector, TypeSerializer<Object> keyType,
            KeyedProcessFunction<Object, Object, Object> function) implements Operation {
        public String kind() {
            return "keyedProcess";
        }

        public String detail() {
            return "key=" + keyType.description();
        }
    }

    /**
     * Processes the records of two inputs (index 0 and 1) keyed by one key type, with keyed state
     * and timers shared by both, scoped to the record's key (streaming only).
     */
    record KeyedCoProcessOp(KeySelector<Object, Object> leftKey, KeySelector<Object, Object> rightKey,
            TypeSerializer<Object> keyType, KeyedCoProcessFunction<Object, Object, Object, Object> function)
            implements Operation {
        public String kind() {
            return "keyedCoProcess";
        }

        public String detail() {
            return "key=" + keyType.description();
        }

        /** The key selector of input {@code input}: 0 is the left, 1 the right. */
        public KeySelector<Object, Object> keySelector(int input) {
            return switch (input) {
                case 0 -> leftKey;
                case 1 -> rightKey;
                default -> throw new IllegalArgumentException("a keyed co-process operator has inputs 0 and 1, not "
                        + input);
            };
        }
    }

    /** Equi-join of two inputs on a key: every matching (left, right) pair is joined. */
    record JoinOp(KeySelector<Object, Object> leftKey, KeySelector<Object, Object> rightKey,
            TypeSerializer<Object> keyType, JoinFunction<Object, Object, Object> function) implements Operation {
        public String kind() {
            return "join";
        }

        public String detail() {
            return "key=" + keyType.description();
        }
    }

    /**
     * The records its input (a keyed process function) emits to the side output {@code tag}: runs
     * chained to its input, and its output type is the tag's.
     */
    record SideOutputOp(OutputTag<Object> tag) implements Operation {
        public String kind() {
            return "sideOutput";
        }

        public String detail() {
            return "tag=" + tag.id() + ",type=" + tag.type().description();
        }
    }

    /**
     * The records of all its inputs, which have one type. Costs nothing where it can: an operator
     * behind an exchange (keyed, rebalance) reads the inputs directly; only operators chained to it
     * make it a vertex of its own.
     */
    record UnionOp() implements Operation {
        public String kind() {
            return "union";
        }
    }

    record SinkOp(Sink<Object> sink) implements Operation {
        public String kind() {
            return "sink";
        }

        public String detail() {
            return sink.description();
        }
    }

    /** Sends the records back to the client, which reads them from the job result by name. */
    record CollectOp() implements Operation {
        public String kind() {
            return "collect";
        }
    }
}
