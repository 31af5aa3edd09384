package io.duraflow.kafka.source;

import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovers the partitions of a {@link KafkaSource}'s topics and assigns each to its owner
 * subtask as soon as it is found.
 *
 * <p>Rules:
 * <ol>
 *   <li>Discovery ({@link PartitionDiscovery}: listing, describing, resolving offsets) runs as
 *       {@code callAsync} work on the worker thread, first at once, then every discovery interval
 *       in unbounded mode, once in bounded mode. Nothing here blocks the main thread.</li>
 *   <li>A partition goes to a fixed owner, {@link #owner}: the partitions of one topic spread
 *       round-robin from a start that depends on the topic. It is assigned when discovered, whether
 *       the owner runs or not (the runtime holds it until the owner runs).</li>
 *   <li>The first discovery of an enumerator must succeed: a failure (no broker answers within the
 *       client's timeouts, a listed topic does not exist) fails the job with one line naming the
 *       bootstrap servers or the topic. A later failure is logged at WARN and retried at the next
 *       interval, so a broker's restart does not fail a running job.</li>
 *   <li>A split request only says the reader runs (splits are pushed). In bounded mode it is
 *       answered with no-more-splits once the first discovery was handled; a request that came
 *       before waits for it.</li>
 *   <li>Splits given back ({@link #addSplitsBack}) go to their owner again, at the offsets they
 *       come back with.</li>
 *   <li>The state is the set of partitions assigned ({@link KafkaEnumeratorState}); a restored
 *       enumerator assigns only others. Partitions of topics the subscription no longer matches are
 *       dropped from it; the readers drop their checkpointed splits with a warning.</li>
 * </ol>
 *
 * <p>Threading: every field but {@link #knownForWork}, {@link #initialForWork} and the metadata
 * client is touched on the main thread only; those three are what the worker reads.
 */
final class KafkaSourceEnumerator implements SplitEnumerator<KafkaPartitionSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSourceEnumerator.class);

    /** Makes the client discovery asks; called on the worker thread, once. */
    @FunctionalInterface
    interface MetadataFactory {
        KafkaMetadata create() throws Exception;
    }

    /**
     * What the enumerator does.
     *
     * @param stopping null for an unbounded source
     * @param discoveryIntervalMs 0 or less: discover once
     */
    record Settings(String bootstrapServers, KafkaSubscription subscription, OffsetsInitializer starting,
            OffsetsInitializer stopping, String groupId, long discoveryIntervalMs) {
        boolean bounded() {
            return stopping != null;
        }
    }

    private final SplitEnumeratorContext<KafkaPartitionSplit> context;
    private final Settings settings;
    private final PartitionDiscovery discovery;
    private final MetadataFactory metadataFactory;
    /** Every partition assigned, by this enumerator or (restored) before it. */
    private final Set<TopicPartition> assigned = new LinkedHashSet<>();
    /** Bounded mode: subtasks that asked before the first discovery was handled. */
    private final Set<Integer> waitingForFirstDiscovery = new TreeSet<>();
    private boolean firstDiscoveryDone;

    /** A copy of {@link #assigned} for the worker, published after each change. */
    private volatile Set<TopicPartition> knownForWork;
    /** Whether the worker's next discovery is the first (until one was handled). */
    private volatile boolean initialForWork = true;
    /** Created and used by the worker; closed by {@link #close}. Guarded by {@code this}. */
    private KafkaMetadata metadata;
    /** Set by {@link #close}; a discovery that ends after it is dropped. */
    private volatile boolean closed;

    /** @param restored the checkpointed state; null for a new enumerator */
    KafkaSourceEnumerator(SplitEnumeratorContext<KafkaPartitionSplit> context, Settings settings,
            MetadataFactory metadataFactory, KafkaEnumeratorState restored) {
        this.context = context;
        this.settings = settings;
        this.metadataFactory = metadataFactory;
        this.discovery = new PartitionDiscovery(settings.subscription(),
                restored == null ? null : restored.subscription(), settings.starting(), settings.stopping(),
                settings.groupId());
        if (restored != null) {
            List<TopicPartition> dropped = new ArrayList<>();
            for (TopicPartition partition : restored.partitions()) {
                (settings.subscription().matches(partition.topic()) ? assigned : dropped).add(partition);
            }
            if (!dropped.isEmpty()) {
                LOG.info("Kafka source {}: forgetting {} checkpointed partitions of topics no longer subscribed: {}",
                        settings.subscription().description(), dropped.size(), dropped);
            }
        }
        this.knownForWork = Set.copyOf(assigned);
    }

    /**
     * The subtask that reads {@code partition}: consecutive partitions of a topic go to
     * consecutive subtasks, from a start that depends on the topic's name (as in Flink), so
     * several topics with few partitions do not all land on subtask 0.
     */
    static int owner(TopicPartition partition, int parallelism) {
        int start = ((partition.topic().hashCode() * 31) & 0x7FFFFFFF) % parallelism;
        return (start + partition.partition()) % parallelism;
    }

    @Override
    public void start() {
        long period = settings.bounded() ? 0 : Math.max(0, settings.discoveryIntervalMs());
        context.callAsync(this::discover, this::handleDiscovery, 0, period);
    }

    /** Runs on the worker thread. */
    private PartitionDiscovery.Result discover() throws Exception {
        return discovery.discover(metadata(), knownForWork, initialForWork);
    }

    private synchronized KafkaMetadata metadata() throws Exception {
        if (closed) {
            throw new IllegalStateException("the Kafka source enumerator is closed");
        }
        if (metadata == null) {
            metadata = metadataFactory.create();
        }
        return metadata;
    }

    /** Back on the main thread with what a discovery found, or why it failed. */
    private void handleDiscovery(PartitionDiscovery.Result result, Throwable failure) {
        if (closed) {
            return;
        }
        if (failure != null) {
            String message = failureMessage(failure);
            if (!firstDiscoveryDone) {
                throw new KafkaSourceException(message, failure);
            }
            LOG.warn("{}; retrying in {} ms", message, settings.discoveryIntervalMs(), failure);
            return;
        }
        if (!result.missingTopics().isEmpty()) {
            String missing = result.missingTopics().size() == 1 ? "topic '" + result.missingTopics().get(0) + "'"
                    : "topics " + result.missingTopics();
            if (!firstDiscoveryDone) {
                throw new KafkaSourceException(missing + " not found on " + settings.bootstrapServers()
                        + "; create it before the job starts, or remove it from the source's topics(...)");
            }
            LOG.warn("Kafka source: {} not found on {} any more; reading the other topics", missing,
                    settings.bootstrapServers());
        }
        for (KafkaPartitionSplit split : result.newSplits()) {
            if (assigned.add(split.topicPartition())) {
                int owner = owner(split.topicPartition(), context.parallelism());
                LOG.info("Kafka source: partition {} from offset {}{} to subtask {}", split.splitId(),
                        split.startingOffset(), split.isBounded() ? " to " + split.stoppingOffset() : "", owner);
                context.assignSplit(split, owner);
            }
        }
        knownForWork = Set.copyOf(assigned);
        if (!firstDiscoveryDone) {
            firstDiscoveryDone = true;
            initialForWork = false;
            if (settings.bounded()) {
                waitingForFirstDiscovery.forEach(context::signalNoMoreSplits);
                waitingForFirstDiscovery.clear();
            }
        }
    }

    private String failureMessage(Throwable failure) {
        String what = "the Kafka source " + settings.subscription().description() + " cannot discover partitions on "
                + settings.bootstrapServers();
        if (failure instanceof TimeoutException) {
            return what + ": no answer within the client's timeout (default.api.timeout.ms): " + failure
                    + "; check bootstrap.servers and that the brokers run";
        }
        return what + ": " + failure;
    }

    @Override
    public void handleSplitRequest(int subtask) {
        if (!settings.bounded()) {
            return;
        }
        if (firstDiscoveryDone) {
            context.signalNoMoreSplits(subtask);
        } else {
            waitingForFirstDiscovery.add(subtask);
        }
    }

    @Override
    public void addSplitsBack(List<KafkaPartitionSplit> splits, int subtask) {
        // The failed attempt's request died with it; its successor asks again.
        waitingForFirstDiscovery.remove(subtask);
        for (KafkaPartitionSplit split : splits) {
            context.assignSplit(split, owner(split.topicPartition(), context.parallelism()));
        }
    }

    @Override
    public byte[] snapshotState(long checkpointId) {
        return KafkaEnumeratorState.of(settings.subscription(), assigned).toBytes();
    }

    @Override
    public synchronized void close() throws Exception {
        closed = true;
        if (metadata != null) {
            metadata.close();
            metadata = null;
        }
    }

    /** Partitions assigned so far; for tests. */
    Set<TopicPartition> assignedPartitions() {
        return Set.copyOf(assigned);
    }
}
