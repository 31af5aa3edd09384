package io.duraflow.kafka.sink;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.types.Types;

/**
 * The numbers 0 .. records - 1, paced at {@code rate} per second in two splits, written to a topic
 * as strings by a {@link KafkaSink} with the given delivery ({@code bootstrap}, {@code topic},
 * {@code delivery}, {@code prefix}); with {@code gated=true} through a {@link PrecommitGate}.
 */
public final class SequenceToKafka implements DuraflowJob {
    @Override
    public void build(JobBuilder job, JobParameters params) {
        long records = params.getLong("records", 10_000);
        long rate = params.getLong("rate", 5_000);
        DeliveryGuarantee delivery = DeliveryGuarantee.valueOf(params.getString("delivery", "EXACTLY_ONCE"));
        KafkaSink.Builder<String> sink = KafkaSink.<String>builder()
                .bootstrapServers(params.getRequired("bootstrap"))
                .serializer(KafkaRecordSerializer.strings(params.getRequired("topic")))
                .delivery(delivery);
        if (delivery == DeliveryGuarantee.EXACTLY_ONCE) {
            sink.transactionalIdPrefix(params.getRequired("prefix"));
        }
        job.fromSource("numbers", DataGeneratorSource.of("numbers", Types.LONG, i -> i)
                        .withCount(records).withRate(rate).withSplits(2))
                .map(Object::toString, Types.STRING)
                .sinkTo("kafka", params.getBoolean("gated", false) ? new PrecommitGate<>(sink.build()) : sink.build());
    }
}
