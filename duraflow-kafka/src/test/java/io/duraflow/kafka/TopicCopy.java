package io.duraflow.kafka;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.types.Types;
import io.duraflow.kafka.sink.DeliveryGuarantee;
import io.duraflow.kafka.sink.KafkaRecordSerializer;
import io.duraflow.kafka.sink.KafkaSink;
import io.duraflow.kafka.source.KafkaRecordDeserializer;
import io.duraflow.kafka.source.KafkaSource;
import io.duraflow.kafka.source.KafkaSourceBuilder;
import io.duraflow.kafka.source.OffsetsInitializer;

/**
 * Copies the values of {@code topics} (comma-separated) to {@code output} through a rebalance
 * (so records cross tasks), exactly once with the transactional id prefix {@code prefix};
 * {@code bounded=true} stops at the end offsets of the start, {@code collect=true} collects the
 * values instead of writing them, {@code group} commits the source's offsets to that consumer group.
 */
public final class TopicCopy implements DuraflowJob {
    @Override
    public void build(JobBuilder job, JobParameters params) {
        String bootstrap = params.getRequired("bootstrap");
        KafkaSourceBuilder<String> source = KafkaSource.<String>builder().bootstrapServers(bootstrap)
                .topics(params.getRequired("topics").split(",")).deserializer(KafkaRecordDeserializer.strings())
                .startingOffsets(OffsetsInitializer.earliest()).partitionDiscoveryInterval(
                        java.time.Duration.ofMillis(params.getLong("discovery-ms", 500)));
        if (params.has("group")) {
            source.groupId(params.getRequired("group"));
        }
        if (params.getBoolean("bounded", false)) {
            source.bounded(OffsetsInitializer.latest());
        }
        var copied = job.fromSource("kafka", source.build()).rebalance().map(value -> value, Types.STRING);
        if (params.getBoolean("collect", false)) {
            copied.collect("values");
            return;
        }
        copied.sinkTo("kafka-out", KafkaSink.<String>builder().bootstrapServers(bootstrap)
                .serializer(KafkaRecordSerializer.strings(params.getRequired("output")))
                .delivery(DeliveryGuarantee.EXACTLY_ONCE).transactionalIdPrefix(params.getRequired("prefix"))
                .build());
    }
}
