package io.duraflow.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.Tuple2;
import io.duraflow.examples.nexmark.Bid;
import io.duraflow.examples.nexmark.Event;
import io.duraflow.examples.nexmark.NexmarkConfig;
import io.duraflow.examples.nexmark.NexmarkGenerator;
import io.duraflow.examples.nexmark.NexmarkQueries;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Nexmark's window-free queries in streaming mode with event time (timestamps from the events,
 * out of order by up to 50 ms), each result equal to the same query computed directly over the
 * generated events.
 */
class NexmarkQueriesTest {
    private static final long EVENTS = 20_000;
    private static final long OUT_OF_ORDERNESS_MS = 50;

    @RegisterExtension
    static final DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(2).build();

    private static List<Bid> bids() {
        NexmarkGenerator generator = new NexmarkGenerator(NexmarkConfig.defaults()
                .withMaxOutOfOrdernessMs(OUT_OF_ORDERNESS_MS));
        List<Bid> bids = new ArrayList<>();
        for (long n = 0; n < EVENTS; n++) {
            Event event = generator.event(n);
            if (event.bid() != null) {
                bids.add(event.bid());
            }
        }
        return bids;
    }

    private static <T> List<T> run(String query) {
        return run(query, false);
    }

    private static <T> List<T> run(String query, boolean rebalance) {
        JobOutcome outcome = cluster.run(NexmarkQueries.class, Map.of("query", query, "events", Long.toString(EVENTS),
                "out-of-orderness", Long.toString(OUT_OF_ORDERNESS_MS), "rebalance", Boolean.toString(rebalance)), 2,
                Map.of("execution.runtime-mode", "streaming"));
        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        return outcome.collected(NexmarkQueries.RESULT);
    }

    private static <T> List<String> sorted(List<T> records, Function<T, String> text) {
        return records.stream().map(text).sorted().toList();
    }

    @Test
    void q0PassesEveryBidThrough() {
        List<Bid> results = run("q0");
        assertThat(sorted(results, Bid::toString)).isEqualTo(sorted(bids(), Bid::toString));
    }

    @Test
    void q1ConvertsEveryPriceToEuroCents() {
        List<Bid> expected = bids().stream().map(bid -> new Bid(bid.auction(), bid.bidder(),
                NexmarkQueries.toEuroCents(bid.price()), bid.channel(), bid.url(), bid.dateTime(), bid.extra())).toList();
        List<Bid> results = run("q1");
        assertThat(sorted(results, Bid::toString)).isEqualTo(sorted(expected, Bid::toString));
    }

    @Test
    void q2SelectsTheBidsOnEvery123rdAuction() {
        List<Tuple2<Long, Long>> expected = bids().stream()
                .filter(bid -> bid.auction() % NexmarkQueries.Q2_AUCTION_MODULUS == 0)
                .map(bid -> Tuple2.of(bid.auction(), bid.price())).toList();
        // Behind a rebalance the events cross an exchange, each with its timestamp ahead of it.
        List<Tuple2<Long, Long>> results = run("q2", true);
        assertThat(expected).as("the query selects something").isNotEmpty();
        assertThat(sorted(results, Tuple2::toString)).isEqualTo(sorted(expected, Tuple2::toString));
    }
}
