package io.duraflow.examples.nexmark;

/**
 * The parameters of the {@link NexmarkGenerator}; {@link #defaults()} are Nexmark's standard
 * ones. Immutable; each {@code with...} method returns a copy with one parameter changed, and
 * every copy is validated (one-line {@link IllegalArgumentException}s).
 *
 * <p>Where the defaults come from: the proportions, average sizes, hot ratios, active people and
 * in-flight auctions are the defaults of Nexmark's {@code NexmarkConfiguration} (the same in
 * Apache Beam's and in the nexmark/nexmark repository that benchmarks Flink); the first ids and
 * the five categories are constants of their {@code GeneratorConfig} and {@code
 * AuctionGenerator}; the event rate is the 10,000,000 events per second that the nexmark/nexmark
 * benchmark suites pass as {@code first-event.rate}; the first event's time is Beam's fixed
 * {@code BASE_TIME}, 2015-07-15T00:00:00Z, so that every run sees the same timestamps.
 *
 * @param personProportion persons in each block of {@link #totalProportion()} events (Nexmark: 1)
 * @param auctionProportion auctions in each block (Nexmark: 3)
 * @param bidProportion bids in each block (Nexmark: 46)
 * @param categories how many auction categories, numbered from {@link #FIRST_CATEGORY_ID} (Nexmark: 5)
 * @param hotAuctionRatio a bid goes to the hot auction with probability {@code 1 - 1/hotAuctionRatio}
 *     (Nexmark: 2, so half the bids; 1: no hot auction)
 * @param hotSellerRatio an auction's seller is the hot seller with probability {@code 1 - 1/hotSellerRatio}
 *     (Nexmark: 4)
 * @param hotBidderRatio a bid's bidder is the hot bidder with probability {@code 1 - 1/hotBidderRatio}
 *     (Nexmark: 4)
 * @param activePeople sellers and bidders that are not hot are drawn from this many newest persons
 *     (Nexmark: 1000)
 * @param inFlightAuctions bids that are not for the hot auction go to one of the newest
 *     {@code inFlightAuctions + 1} auctions; also sets how long auctions run (Nexmark: 100)
 * @param avgPersonBytes the average idealized size of a person event: 8 bytes per number plus
 *     the lengths of its strings, {@code extra} included; {@code extra} pads up to it (Nexmark: 200)
 * @param avgAuctionBytes the same for auctions (Nexmark: 500)
 * @param avgBidBytes the same for bids (Nexmark: 100)
 * @param eventsPerSecond the rate of event time: event {@code n} happens {@code n / eventsPerSecond}
 *     seconds after the first; not a wall-clock rate (Nexmark benchmark suites: 10,000,000)
 * @param firstEventTimeMs the event time of event 0, epoch milliseconds (Beam: 2015-07-15T00:00:00Z)
 * @param maxOutOfOrdernessMs each event's timestamp is its in-order time minus a pseudo-random
 *     delay in {@code [0, maxOutOfOrdernessMs]}; 0: timestamps never decrease
 */
public record NexmarkConfig(int personProportion, int auctionProportion, int bidProportion, int categories,
        int hotAuctionRatio, int hotSellerRatio, int hotBidderRatio, int activePeople, int inFlightAuctions,
        int avgPersonBytes, int avgAuctionBytes, int avgBidBytes, long eventsPerSecond, long firstEventTimeMs,
        long maxOutOfOrdernessMs) {

    /** The first person's id; ids start high so that small runs of the queries still find matches. */
    public static final long FIRST_PERSON_ID = 1000L;
    /** The first auction's id. */
    public static final long FIRST_AUCTION_ID = 1000L;
    /** The first category's id. */
    public static final long FIRST_CATEGORY_ID = 10L;
    /** 2015-07-15T00:00:00Z, Beam Nexmark's {@code BASE_TIME}. */
    public static final long DEFAULT_FIRST_EVENT_TIME_MS = 1_436_918_400_000L;
    /** The most an average event size may be, so that {@code extra} always fits the generator's pool of letters. */
    public static final int MAX_AVG_EVENT_BYTES = 64 * 1024;
    /** The fastest event time may run: a nanosecond per event, which keeps the time formula exact. */
    public static final long MAX_EVENTS_PER_SECOND = 1_000_000_000L;
    /** The most the out-of-orderness bound may be (a year), which keeps every timestamp far from overflow. */
    public static final long MAX_OUT_OF_ORDERNESS_MS = 365L * 24 * 3600 * 1000;

    private static final NexmarkConfig DEFAULTS = new NexmarkConfig(1, 3, 46, 5, 2, 4, 4, 1000, 100, 200, 500, 100,
            10_000_000L, DEFAULT_FIRST_EVENT_TIME_MS, 0L);

    public NexmarkConfig {
        atLeast("personProportion", personProportion, 1);
        atLeast("auctionProportion", auctionProportion, 1);
        atLeast("bidProportion", bidProportion, 0);
        if ((long) personProportion + auctionProportion + bidProportion > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("nexmark proportions must add up to at most " + Integer.MAX_VALUE
                    + ", got " + ((long) personProportion + auctionProportion + bidProportion));
        }
        atLeast("categories", categories, 1);
        atLeast("hotAuctionRatio", hotAuctionRatio, 1);
        atLeast("hotSellerRatio", hotSellerRatio, 1);
        atLeast("hotBidderRatio", hotBidderRatio, 1);
        atLeast("activePeople", activePeople, 1);
        atLeast("inFlightAuctions", inFlightAuctions, 1);
        between("avgPersonBytes", avgPersonBytes, 0, MAX_AVG_EVENT_BYTES);
        between("avgAuctionBytes", avgAuctionBytes, 0, MAX_AVG_EVENT_BYTES);
        between("avgBidBytes", avgBidBytes, 0, MAX_AVG_EVENT_BYTES);
        between("eventsPerSecond", eventsPerSecond, 1, MAX_EVENTS_PER_SECOND);
        atLeast("firstEventTimeMs", firstEventTimeMs, 0);
        between("maxOutOfOrdernessMs", maxOutOfOrdernessMs, 0, MAX_OUT_OF_ORDERNESS_MS);
    }

    /** Nexmark's standard parameters, in order (no out-of-orderness). */
    public static NexmarkConfig defaults() {
        return DEFAULTS;
    }

    /** Events in one block: the proportions repeat every this many events (Nexmark: 50). */
    public int totalProportion() {
        return personProportion + auctionProportion + bidProportion;
    }

    /** Each block of {@code person + auction + bid} events: first the persons, then the auctions, then the bids. */
    public NexmarkConfig withProportions(int person, int auction, int bid) {
        return new NexmarkConfig(person, auction, bid, categories, hotAuctionRatio, hotSellerRatio, hotBidderRatio,
                activePeople, inFlightAuctions, avgPersonBytes, avgAuctionBytes, avgBidBytes, eventsPerSecond,
                firstEventTimeMs, maxOutOfOrdernessMs);
    }

    public NexmarkConfig withCategories(int count) {
        return new NexmarkConfig(personProportion, auctionProportion, bidProportion, count, hotAuctionRatio,
                hotSellerRatio, hotBidderRatio, activePeople, inFlightAuctions, avgPersonBytes, avgAuctionBytes,
                avgBidBytes, eventsPerSecond, firstEventTimeMs, maxOutOfOrdernessMs);
    }

    /** The three hot ratios at once; 1 turns a skew off. */
    public NexmarkConfig withHotRatios(int auction, int seller, int bidder) {
        return new NexmarkConfig(personProportion, auctionProportion, bidProportion, categories, auction, seller,
                bidder, activePeople, inFlightAuctions, avgPersonBytes, avgAuctionBytes, avgBidBytes,
                eventsPerSecond, firstEventTimeMs, maxOutOfOrdernessMs);
    }

    public NexmarkConfig withActivePeople(int count) {
        return new NexmarkConfig(personProportion, auctionProportion, bidProportion, categories, hotAuctionRatio,
                hotSellerRatio, hotBidderRatio, count, inFlightAuctions, avgPersonBytes, avgAuctionBytes,
                avgBidBytes, eventsPerSecond, firstEventTimeMs, maxOutOfOrdernessMs);
    }

    public NexmarkConfig withInFlightAuctions(int count) {
        return new NexmarkConfig(personProportion, auctionProportion, bidProportion, categories, hotAuctionRatio,
                hotSellerRatio, hotBidderRatio, activePeople, count, avgPersonBytes, avgAuctionBytes, avgBidBytes,
                eventsPerSecond, firstEventTimeMs, maxOutOfOrdernessMs);
    }

    /** The three average event sizes at once, in bytes. */
    public NexmarkConfig withAvgBytes(int person, int auction, int bid) {
        return new NexmarkConfig(personProportion, auctionProportion, bidProportion, categories, hotAuctionRatio,
                hotSellerRatio, hotBidderRatio, activePeople, inFlightAuctions, person, auction, bid,
                eventsPerSecond, firstEventTimeMs, maxOutOfOrdernessMs);
    }

    /** The rate of event time (not of wall-clock time; {@link NexmarkSource#withRate} sets that). */
    public NexmarkConfig withEventsPerSecond(long rate) {
        return new NexmarkConfig(personProportion, auctionProportion, bidProportion, categories, hotAuctionRatio,
                hotSellerRatio, hotBidderRatio, activePeople, inFlightAuctions, avgPersonBytes, avgAuctionBytes,
                avgBidBytes, rate, firstEventTimeMs, maxOutOfOrdernessMs);
    }

    public NexmarkConfig withFirstEventTimeMs(long epochMs) {
        return new NexmarkConfig(personProportion, auctionProportion, bidProportion, categories, hotAuctionRatio,
                hotSellerRatio, hotBidderRatio, activePeople, inFlightAuctions, avgPersonBytes, avgAuctionBytes,
                avgBidBytes, eventsPerSecond, epochMs, maxOutOfOrdernessMs);
    }

    public NexmarkConfig withMaxOutOfOrdernessMs(long boundMs) {
        return new NexmarkConfig(personProportion, auctionProportion, bidProportion, categories, hotAuctionRatio,
                hotSellerRatio, hotBidderRatio, activePeople, inFlightAuctions, avgPersonBytes, avgAuctionBytes,
                avgBidBytes, eventsPerSecond, firstEventTimeMs, boundMs);
    }

    private static void atLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException("nexmark " + name + " must be at least " + min + ", got " + value);
        }
    }

    private static void between(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("nexmark " + name + " must be between " + min + " and " + max
                    + ", got " + value);
        }
    }
}
