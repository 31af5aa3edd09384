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
 * {@code dateTime} (watermarks bounded by the generator's out-of-orderness):
 * <ul>
 *   <li>{@code q0}, pass through: every bid, unchanged;
 *   <li>{@code q1}, currency conversion: every bid with its price in euro cents ({@link #toEuroCents});
 *   <li>{@code q2}, selection: (auction, price) of the bids on auctions whose id is a multiple of 123;
 *   <li>{@code q3}, local item suggestion: auctions of category 10 with their sellers from OR, ID, CA;
 *   <li>{@code q4}, average price per category: the average final price of closed auctions;
 *   <li>{@code q5}, hot items: the auctions with the most bids per sliding window;
 *   <li>{@code q7}, highest bid: the bids with the highest price per tumbling window;
 *   <li>{@code q8}, monitor new users: persons who sell in the window they registered in;
 *   <li>{@code q11}, user sessions: each bidder's sessions and their bids.
 * </ul>
 *
 * <p>Parameters: {@code query} (default q0), {@code events} (default 1,000,000; 0 runs without
 * end), {@code rate} (events per second of wall-clock time over all readers; default 0, unlimited),
 * {@code event-rate} (events per second of event time; default Nexmark's 10,000,000),
 * {@code out-of-orderness} (ms, default 0), {@code window} (q5's and q7's and q8's window, default
 * 10 s), {@code slide} (q5, default 2 s), {@code gap} (q11's session gap, default 10 s), {@code
 * rebalance} (true: spread the events over the tasks round-robin before the query; default false),
 * {@code output} (a directory the exactly-once {@link FileSink} writes one line per result to;
 * default: results go back to the client as {@value #RESULT}). q0 to q2 also run as batch jobs;
 * the others need streaming mode ({@code -D execution.runtime-mode=streaming}).
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
        return "Nexmark queries q0, q1, q2, q3, q4, q5, q7, q8 and q11 over generated events";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        output(plan(job, params), params);
    }

    /**
     * The source and the query of {@code params} (all of this job's parameters but {@code
     * output}): the flow of its results, for a job that sends them somewhere else.
     */
    public static Flow<?> plan(JobBuilder job, JobParameters params) {
        String query = params.getString("query", "q0");
        long events = params.getLong("events", 1_000_000L, 0, Long.MAX_VALUE);
        long rate = params.getLong("rate", 0L, 0, Long.MAX_VALUE);
        long outOfOrdernessMs = params.getLong("out-of-orderness", 0L, 0, Duration.ofDays(1).toMillis());
        long eventRate = params.getLong("event-rate", NexmarkConfig.defaults().eventsPerSecond(), 1,
                NexmarkConfig.MAX_EVENTS_PER_SECOND);
        Duration window = Duration.ofMillis(params.getLong("window", 10_000, 1, Duration.ofDays(1).toMillis()));
        Duration slide = Duration.ofMillis(params.getLong("slide", 2_000, 1, window.toMillis()));
        Duration gap = Duration.ofMillis(params.getLong("gap", 10_000, 1, Duration.ofDays(1).toMillis()));
        NexmarkConfig config = NexmarkConfig.defaults().withMaxOutOfOrdernessMs(outOfOrdernessMs)
                .withEventsPerSecond(eventRate);
        job.name("Nexmark " + query);
        Flow<Event> generated = job.fromSource("Nexmark events", NexmarkSource.of(config).withEvents(events).withRate(rate),
                WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofMillis(outOfOrdernessMs))
                        .withTimestampAssigner((event, previous) -> event.timestamp()));
        // With rebalance the events cross an exchange, with their timestamps.
        Flow<Event> source = params.getBoolean("rebalance", false) ? generated.rebalance() : generated;
        return switch (query) {
            case "q0" -> bids(source).map(bid -> bid, Types.record(Bid.class)).name("q0: pass through");
            case "q1" -> bids(source).map(bid -> new Bid(bid.auction(), bid.bidder(), toEuroCents(bid.price()),
                    bid.channel(), bid.url(), bid.dateTime(), bid.extra()), Types.record(Bid.class))
                    .name("q1: currency conversion");
            case "q2" -> bids(source).filter(bid -> bid.auction() % Q2_AUCTION_MODULUS == 0).name("q2: selection")
                    .map(bid -> Tuple2.of(bid.auction(), bid.price()), PAIR);
            case "q3" -> JoinQueries.q3(persons(source), auctions(source));
            case "q4" -> JoinQueries.q4(auctions(source), bids(source));
            case "q5" -> {
                if (window.toMillis() % slide.toMillis() != 0) {
                    throw new InvalidJobParametersException("q5's window (" + window.toMillis()
                            + " ms) must be a multiple of its slide (" + slide.toMillis() + " ms)");
                }
                yield WindowQueries.q5(bids(source), window, slide);
            }
            case "q7" -> WindowQueries.q7(bids(source), window);
            case "q8" -> JoinQueries.q8(persons(source), auctions(source), window);
            case "q11" -> WindowQueries.q11(bids(source), gap);
            default -> throw new InvalidJobParametersException("unknown Nexmark query '" + query
                    + "': choose one of q0, q1, q2, q3, q4, q5, q7, q8, q11");
        };
    }

    private static Flow<Bid> bids(Flow<Event> events) {
        return events.filter(event -> event.bid() != null).name("Bids")
                .map(Event::bid, Types.record(Bid.class)).name("Bid");
    }

    private static Flow<Person> persons(Flow<Event> events) {
        return events.filter(event -> event.person() != null).name("Persons")
                .map(Event::person, Types.record(Person.class)).name("Person");
    }

    private static Flow<Auction> auctions(Flow<Event> events) {
        return events.filter(event -> event.auction() != null).name("Auctions")
                .map(Event::auction, Types.record(Auction.class)).name("Auction");
    }

    private static final TypeSerializer<Tuple2<Long, Long>> PAIR = Types.tuple(Types.LONG, Types.LONG);

    @SuppressWarnings("unchecked")
    private static void output(Flow<?> flow, JobParameters params) {
        Flow<Object> results = (Flow<Object>) flow;
        if (params.has("output")) {
            results.sinkTo("Write results", new FileSink<>(params.getRequired("output"), String::valueOf));
        } else {
            results.collect(RESULT);
        }
    }
}
