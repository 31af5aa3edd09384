package io.duraflow.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.metrics.MetricRegistry;
import io.duraflow.api.metrics.MetricSample;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** The committer's decisions, against a fake broker side. */
class KafkaCommitterTest {
    private final ConcurrentMap<KafkaCommittable, KafkaSinkWriter.LiveTransaction> live = new ConcurrentHashMap<>();
    private final FakeTakeUp takeUp = new FakeTakeUp();
    private final MetricRegistry metrics = new MetricRegistry();
    private final KafkaCommitter committer = new KafkaCommitter(live, takeUp, "job", 900_000, metrics);
    private final List<String> events = new ArrayList<>();

    private double metric(String name) {
        return metrics.sample().stream().filter(sample -> sample.name().equals(name)).findFirst()
                .map(MetricSample::value).orElseThrow();
    }

    private static KafkaCommittable committable(int n) {
        return new KafkaCommittable("job-0-" + n, 100 + n, (short) 3);
    }

    private void live(KafkaCommittable committable) {
        live.put(committable, new KafkaSinkWriter.LiveTransaction(() -> events.add("commit " + committable.transactionalId()),
                () -> events.add("free " + committable.transactionalId())));
    }

    @Test
    void aTransactionWhoseProducerRunsIsCommittedByItAndItsProducerFreed() {
        live(committable(0));
        committer.commit(List.of(committable(0)));

        assertThat(events).containsExactly("commit job-0-0", "free job-0-0");
        assertThat(takeUp.committed).isEmpty();
        assertThat(live).isEmpty();
    }

    @Test
    void aTransactionWithoutALiveProducerIsTakenUpAndCommittingTwiceIsHarmless() {
        live(committable(0));
        committer.commit(List.of(committable(0), committable(1)));
        takeUp.answer = new ProducerFencedException("a later producer ran");
        committer.commit(List.of(committable(0), committable(1)));

        assertThat(events).containsExactly("commit job-0-0", "free job-0-0");
        assertThat(takeUp.committed).containsExactly(committable(1), committable(0), committable(1));
        assertThat(metric("kafka_sink_transactions_lost")).isZero();
        assertThat(metric("kafka_sink_transactions_committed")).as("the first time only").isEqualTo(2);
    }

    @Test
    void aTransactionTheBrokerAbortedAtItsTimeoutIsCountedAsLostAndTheJobGoesOn() {
        takeUp.answer = new InvalidProducerEpochException("epoch bumped");
        takeUp.aborted.add(committable(2));
        committer.commit(List.of(committable(1), committable(2), committable(3)));

        assertThat(metric("kafka_sink_transactions_lost")).isEqualTo(1);
        assertThat(metric("kafka_sink_transactions_committed")).as("1 and 3 were committed before").isZero();
        assertThat(takeUp.committed).containsExactly(committable(1), committable(2), committable(3));
    }

    @Test
    void anyOtherFailureIsThrownSoThatTheNextCompletionOrTheRestoreCommitsAgain() {
        takeUp.answer = new TimeoutException("no broker answered");
        assertThatThrownBy(() -> committer.commit(List.of(committable(1)))).isInstanceOf(TimeoutException.class);

        live.put(committable(0), new KafkaSinkWriter.LiveTransaction(() -> {
            throw new ProducerFencedException("fenced");
        }, () -> events.add("free")));
        assertThatThrownBy(() -> committer.commit(List.of(committable(0))))
                .hasMessageContaining("transactional id job-0-0").hasMessageContaining("prefix 'job'");
        assertThat(events).as("a producer whose commit failed is not freed").isEmpty();
    }

    private static final class FakeTakeUp implements KafkaCommitter.TakeUp {
        final List<KafkaCommittable> committed = new ArrayList<>();
        final Set<KafkaCommittable> aborted = new HashSet<>();
        RuntimeException answer;

        @Override
        public void commit(KafkaCommittable committable) {
            committed.add(committable);
            if (answer != null) {
                throw answer;
            }
        }

        @Override
        public boolean abortedByBroker(KafkaCommittable committable) {
            return aborted.contains(committable);
        }
    }
}
