package io.duraflow.kafka.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class KafkaSourceEnumeratorTest {
    private static final String BOOTSTRAP = "broker-1:9092";
    private final FakeKafkaMetadata cluster = new FakeKafkaMetadata();

    private KafkaSourceEnumerator enumerator(FakeEnumeratorContext context, KafkaSubscription subscription,
            OffsetsInitializer starting, OffsetsInitializer stopping, KafkaEnumeratorState restored) {
        var settings = new KafkaSourceEnumerator.Settings(BOOTSTRAP, subscription, starting, stopping, "group",
                30_000);
        return new KafkaSourceEnumerator(context, settings, () -> cluster, restored);
    }

    private KafkaSourceEnumerator unbounded(FakeEnumeratorContext context, String... topics) {
        return enumerator(context, new KafkaSubscription.Topics(List.of(topics)), OffsetsInitializer.latest(), null,
                null);
    }

    @Test
    void ownersSpreadTheFirstPartitionsOfATopicOverAllSubtasks() {
        int parallelism = 4;
        List<Integer> owners = new ArrayList<>();
        for (int p = 0; p < 8; p++) {
            owners.add(KafkaSourceEnumerator.owner(new TopicPartition("orders", p), parallelism));
        }
        int start = owners.get(0);
        for (int p = 0; p < 8; p++) {
            assertThat(owners.get(p)).isEqualTo((start + p) % parallelism);
        }
        assertThat(owners.subList(0, 4)).containsExactlyInAnyOrder(0, 1, 2, 3);
    }

    @Test
    void firstDiscoveryAssignsEveryPartitionToItsOwnerFromTheStartingOffsets() {
        cluster.topic("orders", 3).topic("other", 2);
        cluster.latest.put(new TopicPartition("orders", 1), 42L);
        FakeEnumeratorContext context = new FakeEnumeratorContext(2);
        KafkaSourceEnumerator enumerator = unbounded(context, "orders");
        enumerator.start();
        assertThat(context.asyncCalls).singleElement()
                .satisfies(call -> assertThat(call.periodMs()).isEqualTo(30_000));
        assertThat(context.assignments).isEmpty();

        context.runDiscovery();

        assertThat(context.assignedIds()).containsExactly("orders-0", "orders-1", "orders-2");
        for (FakeEnumeratorContext.Assignment assignment : context.assignments) {
            assertThat(assignment.subtask()).isEqualTo(KafkaSourceEnumerator.owner(
                    assignment.split().topicPartition(), 2));
            assertThat(assignment.split().isBounded()).isFalse();
        }
        assertThat(context.assignments.get(1).split().startingOffset()).isEqualTo(42);
        assertThat(context.assignments.get(0).split().startingOffset()).isEqualTo(100);
    }

    @Test
    void laterDiscoveriesAssignOnlyNewPartitionsFromTheEarliestOffset() {
        cluster.topic("orders", 2);
        FakeEnumeratorContext context = new FakeEnumeratorContext(3);
        KafkaSourceEnumerator enumerator = unbounded(context, "orders");
        enumerator.start();
        context.runDiscovery();
        context.assignments.clear();

        context.runDiscovery();
        assertThat(context.assignments).isEmpty();

        cluster.topic("orders", 4);
        cluster.earliest.put(new TopicPartition("orders", 3), 7L);
        context.runDiscovery();
        assertThat(context.assignedIds()).containsExactly("orders-2", "orders-3");
        assertThat(context.assignments).extracting(a -> a.split().startingOffset()).containsExactly(0L, 7L);
    }

    @Test
    void patternSubscriptionFindsNewTopicsAndSkipsInternalOnes() {
        cluster.topic("orders-eu", 1).topic("payments", 1).topic("__orders-internal", 1);
        FakeEnumeratorContext context = new FakeEnumeratorContext(2);
        KafkaSourceEnumerator enumerator = enumerator(context,
                new KafkaSubscription.TopicPattern(Pattern.compile(".*orders.*")), OffsetsInitializer.latest(), null,
                null);
        enumerator.start();
        context.runDiscovery();
        assertThat(context.assignedIds()).containsExactly("orders-eu-0");
        assertThat(context.assignments.get(0).split().startingOffset()).isEqualTo(100);

        cluster.topic("orders-us", 2);
        context.runDiscovery();
        assertThat(context.assignedIds()).containsExactly("orders-eu-0", "orders-us-0", "orders-us-1");
        // A topic created while the job runs is read from its start: none of its records is skipped.
        assertThat(context.assignments.subList(1, 3)).allSatisfy(a ->
                assertThat(a.split().startingOffset()).isZero());
    }

    @Test
    void aRestoredEnumeratorAssignsNoPartitionOfItsState() {
        cluster.topic("orders", 3);
        FakeEnumeratorContext first = new FakeEnumeratorContext(2);
        KafkaSourceEnumerator enumerator = unbounded(first, "orders");
        enumerator.start();
        first.runDiscovery();
        byte[] state = enumerator.snapshotState(1);

        cluster.topic("orders", 4);
        FakeEnumeratorContext second = new FakeEnumeratorContext(2);
        KafkaSourceEnumerator restored = enumerator(second, new KafkaSubscription.Topics(List.of("orders")), OffsetsInitializer.latest(),
                null, KafkaEnumeratorState.fromBytes(state, "test"));
        restored.start();
        second.runDiscovery();
        // The partition added while the job was down starts at its earliest offset, not at latest.
        assertThat(second.assignments).singleElement().satisfies(a -> {
            assertThat(a.split().splitId()).isEqualTo("orders-3");
            assertThat(a.split().startingOffset()).isZero();
        });
    }

    @Test
    void aTopicAddedToTheSubscriptionBeforeARestoreStartsFromTheStartingOffsets() {
        cluster.topic("orders", 1).topic("payments", 1).topic("refunds", 1);
        FakeEnumeratorContext first = new FakeEnumeratorContext(1);
        KafkaSourceEnumerator enumerator = unbounded(first, "orders", "refunds");
        enumerator.start();
        first.runDiscovery();
        byte[] state = enumerator.snapshotState(1);

        FakeEnumeratorContext second = new FakeEnumeratorContext(1);
        KafkaSourceEnumerator restored = enumerator(second, new KafkaSubscription.Topics(List.of("orders", "payments")),
                OffsetsInitializer.latest(), null, KafkaEnumeratorState.fromBytes(state, "test"));
        assertThat(restored.assignedPartitions()).containsExactly(new TopicPartition("orders", 0));
        restored.start();
        second.runDiscovery();
        assertThat(second.assignments).singleElement().satisfies(a -> {
            assertThat(a.split().splitId()).isEqualTo("payments-0");
            assertThat(a.split().startingOffset()).isEqualTo(100);
        });
        assertThat(KafkaEnumeratorState.fromBytes(restored.snapshotState(2), "test").partitions())
                .containsExactlyInAnyOrder(new TopicPartition("orders", 0), new TopicPartition("payments", 0));
    }

    @Test
    void splitsGivenBackGoToTheirOwnerAtTheirOffsets() {
        cluster.topic("orders", 4);
        FakeEnumeratorContext context = new FakeEnumeratorContext(4);
        KafkaSourceEnumerator enumerator = unbounded(context, "orders");
        enumerator.start();
        context.runDiscovery();
        context.assignments.clear();

        KafkaPartitionSplit back = KafkaPartitionSplit.unbounded(new TopicPartition("orders", 2), 77);
        int owner = KafkaSourceEnumerator.owner(back.topicPartition(), 4);
        enumerator.addSplitsBack(List.of(back), owner);
        assertThat(context.assignments).containsExactly(new FakeEnumeratorContext.Assignment(back, owner));
    }

    @Test
    void unboundedModeNeverSignalsTheEnd() {
        cluster.topic("orders", 1);
        FakeEnumeratorContext context = new FakeEnumeratorContext(2);
        KafkaSourceEnumerator enumerator = unbounded(context, "orders");
        enumerator.start();
        enumerator.handleSplitRequest(0);
        context.runDiscovery();
        enumerator.handleSplitRequest(1);
        assertThat(context.noMoreSplits).isEmpty();
    }

    @Test
    void aDiscoveryIntervalOfZeroOrLessDiscoversOnlyAtTheStart() {
        FakeEnumeratorContext context = new FakeEnumeratorContext(1);
        new KafkaSourceEnumerator(context, new KafkaSourceEnumerator.Settings(BOOTSTRAP,
                new KafkaSubscription.Topics(List.of("orders")), OffsetsInitializer.earliest(), null, null, -1),
                () -> cluster, null).start();
        assertThat(context.asyncCalls).singleElement().satisfies(call -> assertThat(call.periodMs()).isZero());
    }

    @Test
    void boundedModeDiscoversOnceAndThenSignalsTheEnd() {
        cluster.topic("orders", 3);
        cluster.latest.put(new TopicPartition("orders", 0), 10L);
        FakeEnumeratorContext context = new FakeEnumeratorContext(3);
        KafkaSourceEnumerator enumerator = enumerator(context, new KafkaSubscription.Topics(List.of("orders")),
                OffsetsInitializer.earliest(), OffsetsInitializer.latest(), null);
        enumerator.start();
        assertThat(context.asyncCalls.get(0).periodMs()).isZero();

        enumerator.handleSplitRequest(2); // before the discovery: answered after it
        assertThat(context.noMoreSplits).isEmpty();
        context.runDiscovery();
        assertThat(context.noMoreSplits).containsExactly(2);
        assertThat(context.assignments).extracting(a -> a.split().stoppingOffset()).containsExactly(10L, 100L, 100L);

        enumerator.handleSplitRequest(0);
        assertThat(context.noMoreSplits).containsExactly(2, 0);
    }

    @Test
    void startingOffsetsFromTimestampsAndCommittedOffsetsWithFallback() {
        cluster.topic("orders", 2);
        cluster.forTimestamp.put(new TopicPartition("orders", 0), 5L); // partition 1 has no record that late
        FakeEnumeratorContext context = new FakeEnumeratorContext(1);
        enumerator(context, new KafkaSubscription.Topics(List.of("orders")), OffsetsInitializer.timestamp(1000),
                null, null).start();
        context.runDiscovery();
        assertThat(context.assignments).extracting(a -> a.split().startingOffset()).containsExactly(5L, 100L);

        cluster.committedGroup = "group";
        cluster.committed.put(new TopicPartition("orders", 1), 33L);
        FakeEnumeratorContext committed = new FakeEnumeratorContext(1);
        enumerator(committed, new KafkaSubscription.Topics(List.of("orders")),
                OffsetsInitializer.committed(OffsetsInitializer.ResetStrategy.EARLIEST), null, null).start();
        committed.runDiscovery();
        assertThat(committed.assignments).extracting(a -> a.split().startingOffset()).containsExactly(0L, 33L);

        FakeEnumeratorContext none = new FakeEnumeratorContext(1);
        enumerator(none, new KafkaSubscription.Topics(List.of("orders")),
                OffsetsInitializer.committed(OffsetsInitializer.ResetStrategy.NONE), null, null).start();
        assertThatThrownBy(none::runDiscovery).isInstanceOf(KafkaSourceException.class)
                .hasMessageContaining("group 'group' has no committed offset for [orders-0]");
    }

    @Test
    void explicitOffsetsFallBackForPartitionsNotGiven() {
        cluster.topic("orders", 2);
        FakeEnumeratorContext context = new FakeEnumeratorContext(1);
        enumerator(context, new KafkaSubscription.Topics(List.of("orders")),
                OffsetsInitializer.offsets(Map.of(new TopicPartition("orders", 1), 9L)), null, null).start();
        context.runDiscovery();
        assertThat(context.assignments).extracting(a -> a.split().startingOffset()).containsExactly(0L, 9L);
    }

    @Test
    void aMissingTopicFailsTheFirstDiscoveryButOnlyWarnsLater() {
        cluster.topic("orders", 1);
        FakeEnumeratorContext context = new FakeEnumeratorContext(1);
        KafkaSourceEnumerator enumerator = unbounded(context, "orders", "payments");
        enumerator.start();
        assertThatThrownBy(context::runDiscovery).isInstanceOf(KafkaSourceException.class)
                .hasMessage("topic 'payments' not found on broker-1:9092; create it before the job starts, or"
                        + " remove it from the source's topics(...)");

        cluster.topic("payments", 1);
        FakeEnumeratorContext running = new FakeEnumeratorContext(1);
        KafkaSourceEnumerator second = unbounded(running, "orders", "payments");
        second.start();
        running.runDiscovery();
        cluster.topics.remove("payments");
        cluster.topic("orders", 2);
        running.runDiscovery(); // logged; the other topics are still read
        assertThat(running.assignedIds()).containsExactly("orders-0", "payments-0", "orders-1");
    }

    @Test
    void anUnreachableClusterFailsTheFirstDiscoveryNamingTheBootstrapServersAndIsRetriedLater() {
        cluster.topic("orders", 1).unreachable = true;
        FakeEnumeratorContext context = new FakeEnumeratorContext(1);
        unbounded(context, "orders").start();
        assertThatThrownBy(context::runDiscovery).isInstanceOf(KafkaSourceException.class)
                .hasMessageStartingWith("the Kafka source topics=[orders] cannot discover partitions on broker-1:9092:"
                        + " no answer within the client's timeout (default.api.timeout.ms)")
                .hasMessageEndingWith("; check bootstrap.servers and that the brokers run");

        cluster.unreachable = false;
        FakeEnumeratorContext running = new FakeEnumeratorContext(1);
        unbounded(running, "orders").start();
        running.runDiscovery();
        cluster.unreachable = true;
        running.runDiscovery(); // logged and retried
        cluster.unreachable = false;
        cluster.topic("orders", 2);
        running.runDiscovery();
        assertThat(running.assignedIds()).containsExactly("orders-0", "orders-1");
    }

    @Test
    void closingClosesTheMetadataClientAndStopsDiscovery() throws Exception {
        cluster.topic("orders", 1);
        FakeEnumeratorContext context = new FakeEnumeratorContext(1);
        KafkaSourceEnumerator enumerator = unbounded(context, "orders");
        enumerator.start();
        context.runDiscovery();
        enumerator.close();
        int calls = cluster.calls;
        context.runDiscovery(); // a discovery still in flight fails quietly: the job is going away
        assertThat(cluster.calls).isEqualTo(calls);
    }
}
