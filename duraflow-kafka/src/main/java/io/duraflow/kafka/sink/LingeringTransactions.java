package io.duraflow.kafka.sink;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the transactions a {@link KafkaSink}'s earlier attempts left open and aborts them. An open
 * transaction holds back every {@code read_committed} consumer of the partitions it wrote to until
 * it ends, and the broker ends it only after {@code transaction.timeout.ms} (15 minutes by
 * default), so a restarted job must end them at once.
 *
 * <p>The broker lists its open transactions whose id matches {@code <prefix>-<subtask>-<n>}; subtask
 * {@code s} of parallelism {@code p} aborts those of every earlier subtask {@code i} with
 * {@code i mod p == s}: its own, and those of subtasks a rescale removed, without knowing the
 * earlier parallelism. No subtask of the running attempt writes under an id another subtask
 * aborts. Transactions of the restored checkpoint were committed before this runs.
 */
final class LingeringTransactions {
    private static final Logger LOG = LoggerFactory.getLogger(LingeringTransactions.class);

    private final KafkaSink<?> sink;

    LingeringTransactions(KafkaSink<?> sink) {
        this.sink = sink;
    }

    /** @return how many transactions it aborted */
    int abort(int subtask, int parallelism) throws InterruptedException {
        List<String> mine = new ArrayList<>();
        for (String id : listOpen()) {
            Integer writer = subtaskOf(sink.transactionalIdPrefix(), id);
            if (writer != null && writer % parallelism == subtask) {
                mine.add(id);
            }
        }
        for (String id : mine) {
            // Initializing a producer of the id aborts its open transaction and fences the old producer.
            TransactionalProducer.initialized(sink.producerProperties(), id).closeLeavingTransactionOpen();
            LOG.info("aborted Kafka transaction {}, left open by an earlier attempt", id);
        }
        return mine.size();
    }

    private Collection<String> listOpen() throws InterruptedException {
        Properties properties = new Properties();
        properties.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, sink.bootstrapServers());
        sink.producerProperties().forEach((key, value) -> {
            String name = key.toString();
            if (name.startsWith("security.") || name.startsWith("sasl.") || name.startsWith("ssl.")) {
                properties.put(name, value);
            }
        });
        try (Admin admin = Admin.create(properties)) {
            ListTransactionsOptions options = new ListTransactionsOptions()
                    .filterStates(List.of(TransactionState.ONGOING))
                    .filterOnTransactionalIdPattern(Pattern.quote(sink.transactionalIdPrefix()) + "-\\d+-\\d+");
            List<String> ids = new ArrayList<>();
            for (TransactionListing listing : admin.listTransactions(options).all().get()) {
                ids.add(listing.transactionalId());
            }
            return ids;
        } catch (ExecutionException e) {
            throw new IllegalStateException("the Kafka sink cannot list the open transactions on "
                    + sink.bootstrapServers() + " to abort those of earlier attempts: " + e.getCause()
                    + "; check that the brokers are reachable (and that the sink may describe transactional ids"
                    + " '" + sink.transactionalIdPrefix() + "-*')", e.getCause());
        }
    }

    /** The subtask in {@code <prefix>-<subtask>-<n>}, or null if {@code id} is not one of the prefix's. */
    static Integer subtaskOf(String prefix, String id) {
        if (!id.startsWith(prefix + "-")) {
            return null;
        }
        Matcher matcher = Pattern.compile("(\\d+)-(\\d+)").matcher(id.substring(prefix.length() + 1));
        return matcher.matches() ? Integer.valueOf(matcher.group(1)) : null;
    }
}
