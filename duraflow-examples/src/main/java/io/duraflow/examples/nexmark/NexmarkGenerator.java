package io.duraflow.examples.nexmark;

import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Nexmark's events as a pure function of the event number: {@link #event(long) event(n)} depends
 * only on {@code n} and the {@link NexmarkConfig}. There is no mutable state, so any split of the
 * event numbers can be generated on any thread, in any order, in any process, and gives the same
 * events; a source's position is just the next {@code n}. Plain Java, so that Duraflow jobs and a
 * Flink job of the benchmark generate exactly the same stream.
 *
 * <p>The rules, after Nexmark's reference generators (Apache Beam's {@code
 * org.apache.beam.sdk.nexmark.sources.generator} and the nexmark/nexmark repository's {@code
 * com.github.nexmark.flink.generator}). With {@code P}, {@code A}, {@code B} the proportions and
 * {@code T = P + A + B}, event {@code n} is in block {@code n / T} at offset {@code n % T}:
 * <ol>
 *   <li>Kind: offsets {@code 0 .. P-1} are persons, {@code P .. P+A-1} auctions, the rest bids;
 *       so every block of {@code T} events holds exactly {@code P}, {@code A} and {@code B}.
 *   <li>Ids: persons and auctions are numbered in the order they are generated, from {@link
 *       NexmarkConfig#FIRST_PERSON_ID} and {@link NexmarkConfig#FIRST_AUCTION_ID}; {@link
 *       #lastPersonId} and {@link #lastAuctionId} compute the newest id at any {@code n} without
 *       counting.
 *   <li>Foreign keys: a seller is a person, and a bid's auction and bidder are an auction and a
 *       person, generated before the event. Stricter than Nexmark's generators, which on purpose
 *       also draw up to ten ids past the newest (their "leads"); here a query can rely on it.
 *   <li>Hot skew: the hot auction is the first of the newest group of 100 auctions (ids {@code
 *       100k}, counted from the first); a bid goes to it with probability {@code 1 - 1/hotAuctionRatio},
 *       else to a uniform one of the newest {@code inFlightAuctions + 1} auctions. The hot seller
 *       is the first of the newest group of 100 persons, the hot bidder the second (the newest
 *       person while the group has only one), chosen with probability {@code 1 - 1/hotSellerRatio}
 *       and {@code 1 - 1/hotBidderRatio}; other sellers and bidders are uniform among the newest
 *       {@code activePeople} persons.
 *   <li>Time: event {@code n} happens in order at {@link #inOrderTimeMs(long) firstEventTimeMs +
 *       floor(n * 1000 / eventsPerSecond)}; its timestamp ({@code dateTime}) is that minus a
 *       delay uniform in {@code [0, maxOutOfOrdernessMs]}. So for {@code m < n}, {@code
 *       timestamp(n) >= timestamp(m) - maxOutOfOrdernessMs}: a watermark of the largest timestamp
 *       seen minus the bound makes no event late.
 *   <li>Auction length: uniform in {@code [1, 2h]} ms, {@code h} being the event time the
 *       generator takes for {@code inFlightAuctions} more auctions, so that about that many are
 *       open at a time; at 10 million events a second that is a millisecond or two, as in
 *       Nexmark's generators.
 *   <li>Values: every other field comes from a {@link SplittableRandom} seeded with {@code n}.
 *       Its first draw is the out-of-orderness delay, made whatever the bound, so that changing
 *       the bound changes the timestamps (and expiry times) and nothing else.
 * </ol>
 *
 * <p>Fields as in Nexmark: prices in cents, {@code 10^(6u) * 100} rounded for a uniform {@code u}
 * (1 dollar to 1 million); a reserve is the initial bid plus another such price; categories are
 * uniform; names, cities and channels come from the short lists of {@code NexmarkStrings}.
 */
public final class NexmarkGenerator {
    /**
     * Hot auctions, sellers and bidders are taken from groups of this many ids (the {@code
     * HOT_*_RATIO} constants of Nexmark's generators, not to be confused with the configurable
     * hot ratios).
     */
    static final int HOT_GROUP_SIZE = 100;

    /** Idealized sizes of an event's fixed part: 8 bytes per number, as Nexmark's generators count. */
    private static final int PERSON_NUMBER_BYTES = 8;
    private static final int AUCTION_NUMBER_BYTES = 8 * 6;
    private static final int BID_NUMBER_BYTES = 8 * 4;

    private final NexmarkConfig config;
    private final int total;
    private final int persons;
    private final int auctions;
    /** How many events it takes to generate {@code inFlightAuctions} auctions. */
    private final long eventsForInFlightAuctions;

    public NexmarkGenerator(NexmarkConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.total = config.totalProportion();
        this.persons = config.personProportion();
        this.auctions = config.auctionProportion();
        this.eventsForInFlightAuctions = (long) config.inFlightAuctions() * total / auctions;
    }

    public NexmarkConfig config() {
        return config;
    }

    /** Event number {@code n} (0, 1, 2, ...). */
    public Event event(long n) {
        SplittableRandom random = randomOf(n);
        long timestamp = timestamp(n, random);
        long offset = n % total;
        if (offset < persons) {
            return Event.of(person(n, random, timestamp));
        } else if (offset < persons + auctions) {
            return Event.of(auction(n, random, timestamp));
        }
        return Event.of(bid(n, random, timestamp));
    }

    /** The kind of event {@code n}, without generating it. */
    public Event.Kind kindOf(long n) {
        requireEventNumber(n);
        long offset = n % total;
        return offset < persons ? Event.Kind.PERSON : offset < persons + auctions ? Event.Kind.AUCTION : Event.Kind.BID;
    }

    /** When event {@code n} happens in order, epoch ms: {@code first + floor(n * 1000 / eventsPerSecond)}. */
    public long inOrderTimeMs(long n) {
        requireEventNumber(n);
        long rate = config.eventsPerSecond();
        // Split so that n * 1000 cannot overflow; (n % rate) * 1000 stays below 10^12.
        long ms = Math.addExact(Math.multiplyExact(n / rate, 1000L), n % rate * 1000L / rate);
        return Math.addExact(config.firstEventTimeMs(), ms);
    }

    /** The timestamp ({@code dateTime}) of event {@code n}, without generating the rest of it. */
    public long timestampMs(long n) {
        return timestamp(n, randomOf(n));
    }

    /**
     * The id of the newest person generated up to event {@code n}, {@code n} itself included:
     * every id from {@link NexmarkConfig#FIRST_PERSON_ID} to it exists by then.
     */
    public long lastPersonId(long n) {
        return NexmarkConfig.FIRST_PERSON_ID + lastPersonIndex(n);
    }

    /**
     * The id of the newest auction generated up to event {@code n}, {@code n} itself included;
     * {@code FIRST_AUCTION_ID - 1} before the first auction.
     */
    public long lastAuctionId(long n) {
        return NexmarkConfig.FIRST_AUCTION_ID + lastAuctionIndex(n);
    }

    /** The auction that bids at event {@code n} prefer. */
    long hotAuctionId(long n) {
        return NexmarkConfig.FIRST_AUCTION_ID + lastAuctionIndex(n) / HOT_GROUP_SIZE * HOT_GROUP_SIZE;
    }

    /** The person that auctions at event {@code n} prefer as seller. */
    long hotSellerId(long n) {
        return NexmarkConfig.FIRST_PERSON_ID + lastPersonIndex(n) / HOT_GROUP_SIZE * HOT_GROUP_SIZE;
    }

    /** The person that bids at event {@code n} prefer as bidder: the hot seller's successor, once it exists. */
    long hotBidderId(long n) {
        long last = lastPersonIndex(n);
        return NexmarkConfig.FIRST_PERSON_ID + Math.min(last / HOT_GROUP_SIZE * HOT_GROUP_SIZE + 1, last);
    }

    private Person person(long n, SplittableRandom random, long timestamp) {
        long id = lastPersonId(n);
        String name = NexmarkStrings.personName(random);
        String email = NexmarkStrings.email(random);
        String creditCard = NexmarkStrings.creditCard(random);
        String city = NexmarkStrings.city(random);
        String state = NexmarkStrings.state(random);
        int size = PERSON_NUMBER_BYTES + name.length() + email.length() + creditCard.length() + city.length()
                + state.length();
        String extra = NexmarkStrings.extra(random, size, config.avgPersonBytes());
        return new Person(id, name, email, creditCard, city, state, timestamp, extra);
    }

    private Auction auction(long n, SplittableRandom random, long timestamp) {
        long id = lastAuctionId(n);
        long seller = random.nextInt(config.hotSellerRatio()) > 0 ? hotSellerId(n) : activePerson(n, random);
        long category = NexmarkConfig.FIRST_CATEGORY_ID + random.nextInt(config.categories());
        long initialBid = price(random);
        long expires = timestamp + auctionLengthMs(n, random);
        String itemName = NexmarkStrings.letters(random, 20);
        String description = NexmarkStrings.letters(random, 100);
        long reserve = initialBid + price(random);
        int size = AUCTION_NUMBER_BYTES + itemName.length() + description.length();
        String extra = NexmarkStrings.extra(random, size, config.avgAuctionBytes());
        return new Auction(id, itemName, description, initialBid, reserve, timestamp, expires, seller, category,
                extra);
    }

    private Bid bid(long n, SplittableRandom random, long timestamp) {
        long auction = random.nextInt(config.hotAuctionRatio()) > 0 ? hotAuctionId(n) : inFlightAuction(n, random);
        long bidder = random.nextInt(config.hotBidderRatio()) > 0 ? hotBidderId(n) : activePerson(n, random);
        long price = price(random);
        NexmarkStrings.Channel channel = NexmarkStrings.channel(random);
        String extra = NexmarkStrings.extra(random, BID_NUMBER_BYTES, config.avgBidBytes());
        return new Bid(auction, bidder, price, channel.name(), channel.url(), timestamp, extra);
    }

    /** Uniform among the newest {@code activePeople} persons (fewer at the start). */
    private long activePerson(long n, SplittableRandom random) {
        long people = lastPersonIndex(n) + 1;
        long active = Math.min(people, config.activePeople());
        return NexmarkConfig.FIRST_PERSON_ID + people - active + random.nextLong(active);
    }

    /** Uniform among the newest {@code inFlightAuctions + 1} auctions (fewer at the start). */
    private long inFlightAuction(long n, SplittableRandom random) {
        long last = lastAuctionIndex(n);
        long oldest = Math.max(last - config.inFlightAuctions(), 0);
        return NexmarkConfig.FIRST_AUCTION_ID + oldest + random.nextLong(last - oldest + 1);
    }

    private long auctionLengthMs(long n, SplittableRandom random) {
        long horizonMs = inOrderTimeMs(n + eventsForInFlightAuctions) - inOrderTimeMs(n);
        return 1 + random.nextLong(Math.max(horizonMs * 2, 1));
    }

    /** Persons are counted from 0 here; {@code n}'s block holds persons {@code block * P .. block * P + P - 1}. */
    private long lastPersonIndex(long n) {
        requireEventNumber(n);
        return n / total * persons + Math.min(n % total, persons - 1);
    }

    /** Auctions counted from 0; -1 before the first one. */
    private long lastAuctionIndex(long n) {
        requireEventNumber(n);
        long block = n / total;
        long offset = n % total;
        if (offset < persons) {
            return block * auctions - 1;
        }
        return block * auctions + Math.min(offset - persons, auctions - 1);
    }

    private long timestamp(long n, SplittableRandom random) {
        // Drawn even when the bound is 0, so that the bound changes no other field; the modulo's
        // bias is below 2^-28 for the largest bound allowed.
        long delay = Math.floorMod(random.nextLong(), config.maxOutOfOrdernessMs() + 1);
        return inOrderTimeMs(n) - delay;
    }

    private static SplittableRandom randomOf(long n) {
        requireEventNumber(n);
        return new SplittableRandom(n);
    }

    /** In cents: 10^(6u) dollars for a uniform u, so from 1 dollar to a million, mostly cheap. */
    private static long price(SplittableRandom random) {
        return Math.round(pow10(random.nextDouble() * 6.0) * 100.0);
    }

    /** Steps of {@link #pow10}: 10^(i / 64) for i = 0 .. 6 * 64, each from StrictMath. */
    private static final double[] POW10_STEPS = new double[6 * 64 + 1];
    private static final double LN10_STEP = StrictMath.log(10.0) / 64;

    static {
        for (int i = 0; i < POW10_STEPS.length; i++) {
            POW10_STEPS[i] = StrictMath.pow(10.0, i / 64.0);
        }
    }

    /**
     * 10^x for x in [0, 6], to about 1e-15 relative: the step of the table below x times e^r for
     * the rest r (under 0.036) by its Taylor series to r^7. Plain double arithmetic is the same on
     * every JVM and CPU, as StrictMath is, and this is a few multiplications where {@code
     * StrictMath.pow} was the largest single cost of generating events (a sixth of Nexmark q7's CPU
     * time, both engines of the benchmark generating).
     */
    static double pow10(double x) {
        double scaled = x * 64;
        int step = (int) scaled;
        double r = (scaled - step) * LN10_STEP;
        double exp = 1 + r * (1 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720
                + r * (1.0 / 5040)))))));
        return POW10_STEPS[step] * exp;
    }

    private static void requireEventNumber(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("nexmark event numbers start at 0, got " + n);
        }
    }
}
