package io.duraflow.examples.nexmark;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.InvalidJobParametersException;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.FileSink;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.time.Duration;

/**
 * Nexmark's queries over generated events ({@link NexmarkSource}), with event time from the events'
 * {@code dateTime} (watermarks bounded by the generator's out-of-orderness). So far the queries
 * that need no windows:
 * <ul>
 *   <li>{@code q0}, pass through: every bid, unchanged;
 *   <li>{@code q1}, currency conversion: every bid with its price in euro cents ({@link #toEuroCents});
 *   <li>{@code q2}, selection: (auction, price) of the bids on auctions whose id is a multiple of 123.
 * </ul>
 *
 * <p>Parameters: {@code query} (q0, q1, q2; default q0), {@code events} (default 1,000,000; 0 runs
 * without end), {@code rate} (events per second of wall-clock time over all readers; default 0,
 * unlimited), {@code out-of-orderness} (ms, default 0), {@code rebalance} (true: spread the events
 * over the tasks round-robin before the query; default false), {@code output} (a directory the exactly-once
 * {@link FileSink} writes one line per result to; default: results go back to the client as
 * {@value #RESULT}). Run it in streaming mode ({@code -D execution.runtime-mode=streaming}) to get
 * watermarks; a bounded run in automatic mode runs as a batch job.
 */
public final class NexmarkQueries implements DuraflowJob {
    public static final String RESULT = "results";
    /** q2's auctions: those whose id is a multiple of this. */
    public static final long Q2_AUCTION_MODULUS = 123;

    /** q1's conversion, dollars to euros at Nexmark's 0.908, in whole cents (rounded down). */
    public static long toEuroCents(long dollarCents) {
        return dollarCents * 908 / 1000;
    }

    @Override
    public String description() {
        return "Nexmark queries q0 (pass through), q1 (currency conversion), q2 (selection) over generated events";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        String query = params.getString("query", "q0");
        long events = params.getLong("events", 1_000_000L, 0, Long.MAX_VALUE);
        long rate = params.getLong("rate", 0L, 0, Long.MAX_VALUE);
        long outOfOrdernessMs = params.getLong("out-of-orderness", 0L, 0, Duration.ofDays(1).toMillis());
        NexmarkConfig config = NexmarkConfig.defaults().withMaxOutOfOrdernessMs(outOfOrdernessMs);
        job.name("Nexmark " + query);
        Flow<Event> source = job.fromSource("Nexmark events", NexmarkSource.of(config).withEvents(events).withRate(rate),
                WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofMillis(outOfOrdernessMs))
                        .withTimestampAssigner((event, previous) -> event.timestamp()));
        if (params.getBoolean("rebalance", false)) {
            source = source.rebalance(); // the events cross an exchange, with their timestamps
        }
        Flow<Bid> bids = source.filter(event -> event.bid() != null).name("Bids")
                .map(Event::bid, Types.record(Bid.class)).name("Bid");
        switch (query) {
            case "q0" -> output(bids.map(bid -> bid, Types.record(Bid.class)).name("q0: pass through"), params);
            case "q1" -> output(bids.map(bid -> new Bid(bid.auction(), bid.bidder(), toEuroCents(bid.price()),
                    bid.channel(), bid.url(), bid.dateTime(), bid.extra()), Types.record(Bid.class))
                    .name("q1: currency conversion"), params);
            case "q2" -> output(bids.filter(bid -> bid.auction() % Q2_AUCTION_MODULUS == 0).name("q2: selection")
                    .map(bid -> Tuple2.of(bid.auction(), bid.price()), PAIR), params);
            default -> throw new InvalidJobParametersException("unknown Nexmark query '" + query
                    + "': this job runs q0, q1 and q2 (windowed queries come with event-time windows)");
        }
    }

    private static final TypeSerializer<Tuple2<Long, Long>> PAIR = Types.tuple(Types.LONG, Types.LONG);

    private static <T> void output(Flow<T> results, JobParameters params) {
        if (params.has("output")) {
            results.sinkTo("Write results", new FileSink<>(params.getRequired("output"), String::valueOf));
        } else {
            results.collect(RESULT);
        }
    }
}
