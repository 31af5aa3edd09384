package io.duraflow.cli.kafka;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.kafka.sink.DeliveryGuarantee;
import io.duraflow.kafka.sink.KafkaRecordSerializer;
import io.duraflow.kafka.sink.KafkaSink;
import io.duraflow.kafka.source.KafkaRecordDeserializer;
import io.duraflow.kafka.source.KafkaSource;
import io.duraflow.kafka.source.KafkaSourceBuilder;
import io.duraflow.kafka.source.OffsetsInitializer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Topic to topic, keyed: reads keys (UTF-8 text) from {@code input}, counts them per key in keyed
 * state and writes {@code key:count} to {@code output} for every record, exactly once by default.
 * The output then holds, for a key read n times, {@code key:1} .. {@code key:n}, each once: what
 * {@link #check} verifies, and why a lost or repeated record, or a count restored wrong, shows.
 *
 * <p>Parameters: {@code bootstrap} (the brokers, required), {@code input} and {@code output}
 * (topics, required), {@code delivery} ({@code EXACTLY_ONCE}, {@code AT_LEAST_ONCE} or
 * {@code NONE}), {@code prefix} (the transactional id prefix, default {@code keyed-count-<output>}),
 * {@code group} (a consumer group the source commits its checkpointed offsets to, for monitoring;
 * default none), {@code bounded} ({@code true}: stop at the input's end offsets at the start,
 * which makes a batch of it; default {@code false}).
 */
public final class KafkaKeyedCount implements DuraflowJob {
    @Override
    public String description() {
        return "a count per key from a Kafka topic to a Kafka topic, exactly once (the Kafka demo's job)";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        String bootstrap = params.getRequired("bootstrap");
        String output = params.getRequired("output");
        DeliveryGuarantee delivery = DeliveryGuarantee.valueOf(params.getString("delivery", "EXACTLY_ONCE"));
        KafkaSourceBuilder<String> source = KafkaSource.<String>builder().bootstrapServers(bootstrap)
                .topics(params.getRequired("input")).deserializer(KafkaRecordDeserializer.strings())
                .startingOffsets(OffsetsInitializer.earliest());
        if (params.has("group")) {
            source.groupId(params.getRequired("group"));
        }
        if (params.getBoolean("bounded", false)) {
            source.bounded(OffsetsInitializer.latest());
        }
        KafkaSink.Builder<String> sink = KafkaSink.<String>builder().bootstrapServers(bootstrap)
                .serializer(KafkaRecordSerializer.strings(output)).delivery(delivery);
        if (delivery == DeliveryGuarantee.EXACTLY_ONCE) {
            sink.transactionalIdPrefix(params.getString("prefix", "keyed-count-" + output));
        }
        job.fromSource("kafka " + params.getRequired("input"), source.build())
                .map(key -> Tuple2.of(key, 1L), Types.tuple(Types.STRING, Types.LONG))
                .keyBy(Tuple2::f0, Types.STRING)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1()))
                .map(count -> count.f0() + ":" + count.f1(), Types.STRING)
                .sinkTo("kafka " + output, sink.build());
    }

    /**
     * What is wrong with {@code output} (the values read from the output topic) for an input in
     * which each key appeared {@code inputCounts} times: a count missing, repeated, or beyond the
     * key's. Empty if the output is exact. Lists at most {@code limit} problems.
     */
    public static List<String> check(List<String> output, Map<String, Long> inputCounts, int limit) {
        Map<String, Map<Long, Integer>> seen = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (String value : output) {
            int colon = value.lastIndexOf(':');
            if (colon < 0) {
                problems.add("not key:count: " + value);
                continue;
            }
            long count = Long.parseLong(value.substring(colon + 1));
            seen.computeIfAbsent(value.substring(0, colon), k -> new HashMap<>()).merge(count, 1, Integer::sum);
        }
        for (Map.Entry<String, Long> key : inputCounts.entrySet()) {
            Map<Long, Integer> counts = seen.getOrDefault(key.getKey(), Map.of());
            for (long i = 1; i <= key.getValue() && problems.size() < limit; i++) {
                int times = counts.getOrDefault(i, 0);
                if (times != 1) {
                    problems.add(key.getKey() + ":" + i + " is there " + times + " times");
                }
            }
            counts.keySet().stream().filter(c -> c < 1 || c > key.getValue()).limit(limit)
                    .forEach(c -> problems.add(key.getKey() + ":" + c + " is beyond the key's " + key.getValue()
                            + " records"));
        }
        seen.keySet().stream().filter(k -> !inputCounts.containsKey(k)).limit(limit)
                .forEach(k -> problems.add("key " + k + " was never in the input"));
        return problems.size() > limit ? problems.subList(0, limit) : problems;
    }
}
