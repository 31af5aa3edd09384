package io.duraflow.examples.nexmark;

import static io.duraflow.examples.nexmark.NexmarkConfig.FIRST_AUCTION_ID;
import static io.duraflow.examples.nexmark.NexmarkConfig.FIRST_PERSON_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The generator's rules (numbered in {@link NexmarkGenerator}'s javadoc) over runs of consecutive
 * events; {@link NexmarkGeneratorPropertiesTest} checks single events anywhere in the sequence.
 */
class NexmarkGeneratorTest {
    private static final int EVENTS = 50_000;
    private static final NexmarkGenerator DEFAULT = new NexmarkGenerator(NexmarkConfig.defaults());
    private static final Pattern NAME = Pattern.compile("[A-Z][a-z]+ [A-Z][a-z]+");

    /** Prices come from pow10: it must be 10^x to double precision, at the table's steps and between them. */
    @Test
    void pow10IsTenToThePowerWithinAFewUlps() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i <= 6 * 64 * 4; i++) {
            double x = i / 256.0;
            assertThat(NexmarkGenerator.pow10(x)).as("10^%s", x)
                    .isCloseTo(StrictMath.pow(10.0, x), within(4 * Math.ulp(StrictMath.pow(10.0, x))));
        }
        for (int i = 0; i < 100_000; i++) {
            double x = random.nextDouble() * 6.0;
            assertThat(NexmarkGenerator.pow10(x)).as("10^%s", x)
                    .isCloseTo(StrictMath.pow(10.0, x), within(4 * Math.ulp(StrictMath.pow(10.0, x))));
        }
    }
    private static final Pattern EMAIL = Pattern.compile("[a-z ]*@[a-z ]*\\.com");
    private static final Pattern CREDIT_CARD = Pattern.compile("\\d{4} \\d{4} \\d{4} \\d{4}");
    private static final Pattern CHANNEL = Pattern.compile("Google|Facebook|Baidu|Apple|channel-\\d{1,4}");
    /** Generated once: most tests read the same run of default events. */
    private static final List<Event> DEFAULT_RUN = generate(DEFAULT, EVENTS);

    @Test
    void sameEventNumberGivesTheSameEventOnAnyThreadInAnyOrder() throws Exception {
        int count = 8_000;
        Event[] parallel = new Event[count];
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int split = 0; split < 4; split++) {
                int first = split;
                NexmarkGenerator own = new NexmarkGenerator(NexmarkConfig.defaults());
                // Each thread reads a stride split backwards with its own generator instance.
                done.add(threads.submit(() -> {
                    for (int n = count - 4 + first; n >= 0; n -= 4) {
                        parallel[n] = own.event(n);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(parallel).containsExactlyElementsOf(DEFAULT_RUN.subList(0, count));
    }

    @Test
    void everyBlockOfFiftyHasOnePersonThenThreeAuctionsThenFortySixBids() {
        for (int block = 0; block < EVENTS / 50; block++) {
            for (int offset = 0; offset < 50; offset++) {
                Event.Kind expected = offset < 1 ? Event.Kind.PERSON : offset < 4 ? Event.Kind.AUCTION : Event.Kind.BID;
                assertThat(DEFAULT_RUN.get(block * 50 + offset).kind()).isEqualTo(expected);
            }
        }
        long far = 123_456_789_012L * 50;
        for (int offset = 0; offset < 50; offset++) {
            assertThat(DEFAULT.event(far + offset).kind()).isEqualTo(DEFAULT.kindOf(offset));
        }
    }

    @Test
    void otherProportionsRepeatInEveryBlock() {
        NexmarkGenerator generator = new NexmarkGenerator(NexmarkConfig.defaults().withProportions(2, 5, 3));
        for (int block = 0; block < 200; block++) {
            Map<Event.Kind, Integer> counts = new EnumMap<>(Event.Kind.class);
            for (int offset = 0; offset < 10; offset++) {
                Event event = generator.event(block * 10L + offset);
                assertThat(event.kind()).isEqualTo(generator.kindOf(block * 10L + offset));
                counts.merge(event.kind(), 1, Integer::sum);
            }
            assertThat(counts).containsEntry(Event.Kind.PERSON, 2).containsEntry(Event.Kind.AUCTION, 5)
                    .containsEntry(Event.Kind.BID, 3);
        }
    }

    @Test
    void idsCountUpAndReferencesPointOnlyToEarlierRecentEvents() {
        checkReferences(DEFAULT, DEFAULT_RUN, 100, 999);
        // Without the hot skew the windows are exactly the configured ones.
        NexmarkGenerator narrow = new NexmarkGenerator(NexmarkConfig.defaults().withHotRatios(1, 1, 1)
                .withActivePeople(7).withInFlightAuctions(3).withProportions(1, 2, 5));
        checkReferences(narrow, generate(narrow, 10_000), 3, 6);
    }

    @Test
    void theHotAuctionGetsAboutHalfTheBidsAndHotPeopleAboutThreeQuarters() {
        // Hot ids are multiples of 100 from the first (the bidder's the one after), which random
        // choices hit only about once in a hundred.
        assertThat(share(DEFAULT_RUN, e -> e.bid() != null,
                e -> (e.bid().auction() - FIRST_AUCTION_ID) % 100 == 0)).isCloseTo(0.5 + 0.5 / 101, within(0.02));
        assertThat(share(DEFAULT_RUN, e -> e.auction() != null,
                e -> (e.auction().seller() - FIRST_PERSON_ID) % 100 == 0)).isCloseTo(0.75, within(0.03));
        assertThat(share(DEFAULT_RUN, e -> e.bid() != null,
                e -> (e.bid().bidder() - FIRST_PERSON_ID) % 100 == 1)).isCloseTo(0.75, within(0.03));
        for (int n = 0; n < EVENTS; n++) {
            Event event = DEFAULT_RUN.get(n);
            if (event.bid() != null && (event.bid().auction() - FIRST_AUCTION_ID) % 100 == 0) {
                assertThat(event.bid().auction()).isIn(DEFAULT.hotAuctionId(n), DEFAULT.lastAuctionId(n) - 100,
                        DEFAULT.lastAuctionId(n));
            }
        }

        List<Event> flat = generate(new NexmarkGenerator(NexmarkConfig.defaults().withHotRatios(1, 1, 1)), 20_000);
        assertThat(share(flat, e -> e.bid() != null, e -> (e.bid().auction() - FIRST_AUCTION_ID) % 100 == 0))
                .isLessThan(0.03);
    }

    @Test
    void inOrderTimeAdvancesAMillisecondEveryTenThousandEventsByDefault() {
        long first = NexmarkConfig.DEFAULT_FIRST_EVENT_TIME_MS;
        assertThat(DEFAULT.inOrderTimeMs(0)).isEqualTo(first);
        assertThat(DEFAULT.inOrderTimeMs(9_999)).isEqualTo(first);
        assertThat(DEFAULT.inOrderTimeMs(10_000)).isEqualTo(first + 1);
        assertThat(DEFAULT.inOrderTimeMs(1_000_000_000_000L)).isEqualTo(first + 100_000_000L);
        NexmarkGenerator three = new NexmarkGenerator(NexmarkConfig.defaults().withEventsPerSecond(3));
        assertThat(three.inOrderTimeMs(1)).isEqualTo(first + 333);
        assertThat(three.inOrderTimeMs(2)).isEqualTo(first + 666);
        assertThat(three.inOrderTimeMs(3)).isEqualTo(first + 1000);
        for (int n = 0; n < EVENTS; n++) {
            assertThat(DEFAULT_RUN.get(n).timestamp()).isEqualTo(DEFAULT.inOrderTimeMs(n));
        }
        assertThatThrownBy(() -> DEFAULT.event(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nexmark event numbers start at 0, got -1");
    }

    @Test
    void withoutOutOfOrdernessTimestampsNeverDecrease() {
        NexmarkGenerator generator = new NexmarkGenerator(NexmarkConfig.defaults().withEventsPerSecond(1000));
        long previous = Long.MIN_VALUE;
        for (int n = 0; n < 20_000; n++) {
            long timestamp = generator.event(n).timestamp();
            assertThat(timestamp).isEqualTo(generator.inOrderTimeMs(n)).isGreaterThanOrEqualTo(previous);
            previous = timestamp;
        }
        assertThat(previous).isEqualTo(NexmarkConfig.DEFAULT_FIRST_EVENT_TIME_MS + 19_999);
    }

    @Test
    void outOfOrdernessStaysWithinTheBoundAndFillsIt() {
        long bound = 50;
        NexmarkGenerator generator = new NexmarkGenerator(
                NexmarkConfig.defaults().withEventsPerSecond(1000).withMaxOutOfOrdernessMs(bound));
        long maxSeen = Long.MIN_VALUE / 2;
        long minDelay = Long.MAX_VALUE;
        long maxDelay = Long.MIN_VALUE;
        int late = 0;
        for (int n = 0; n < 20_000; n++) {
            Event event = generator.event(n);
            long timestamp = event.timestamp();
            assertThat(timestamp).isEqualTo(generator.timestampMs(n));
            long delay = generator.inOrderTimeMs(n) - timestamp;
            minDelay = Math.min(minDelay, delay);
            maxDelay = Math.max(maxDelay, delay);
            // A watermark of (largest timestamp seen - bound) never makes an event late.
            assertThat(timestamp).isGreaterThanOrEqualTo(maxSeen - bound);
            late += timestamp < maxSeen ? 1 : 0;
            maxSeen = Math.max(maxSeen, timestamp);
        }
        assertThat(minDelay).isZero();
        assertThat(maxDelay).isEqualTo(bound);
        assertThat(late).isGreaterThan(10_000);
    }

    @Test
    void theOutOfOrdernessBoundChangesTheTimesAndNothingElse() {
        NexmarkGenerator skewed = new NexmarkGenerator(NexmarkConfig.defaults().withMaxOutOfOrdernessMs(30));
        int moved = 0;
        for (int n = 0; n < 5_000; n++) {
            Event inOrder = DEFAULT_RUN.get(n);
            Event event = skewed.event(n);
            assertThat(withoutTime(event)).isEqualTo(withoutTime(inOrder));
            moved += event.timestamp() != inOrder.timestamp() ? 1 : 0;
        }
        assertThat(moved).isGreaterThan(4_000);
    }

    @Test
    void auctionsRunForAboutTheTimeTheNextInFlightAuctionsTake() {
        for (Event event : DEFAULT_RUN) {
            if (event.auction() != null) {
                // 1,666 events for 100 more auctions take under a millisecond at 10 million a second.
                assertThat(event.auction().expires() - event.auction().dateTime()).isBetween(1L, 2L);
            }
        }
        NexmarkGenerator slow = new NexmarkGenerator(NexmarkConfig.defaults().withEventsPerSecond(1000));
        double total = 0;
        int auctions = 0;
        for (int n = 0; n < EVENTS; n++) {
            if (slow.kindOf(n) == Event.Kind.AUCTION) {
                Auction auction = slow.event(n).auction();
                long length = auction.expires() - auction.dateTime();
                assertThat(length).isBetween(1L, 2L * 1666);
                total += length;
                auctions++;
            }
        }
        assertThat(total / auctions).isCloseTo(1666, within(1666 * 0.05));
    }

    @Test
    void fieldsHaveNexmarksShapes() {
        for (Event event : DEFAULT_RUN) {
            switch (event.kind()) {
                case PERSON -> {
                    Person person = event.person();
                    assertThat(NAME.matcher(person.name()).matches()).as(person.name()).isTrue();
                    assertThat(EMAIL.matcher(person.emailAddress()).matches()).as(person.emailAddress()).isTrue();
                    assertThat(CREDIT_CARD.matcher(person.creditCard()).matches()).as(person.creditCard()).isTrue();
                    assertThat(person.city()).isIn((Object[]) NexmarkStrings.US_CITIES);
                    assertThat(person.state()).isIn((Object[]) NexmarkStrings.US_STATES);
                }
                case AUCTION -> {
                    Auction auction = event.auction();
                    assertThat(auction.initialBid()).isBetween(100L, 100_000_000L);
                    assertThat(auction.reserve()).isGreaterThan(auction.initialBid());
                    assertThat(auction.category()).isBetween(10L, 14L);
                    assertThat(auction.itemName().length()).isLessThan(20);
                    assertThat(auction.description().length()).isLessThan(100);
                }
                case BID -> {
                    Bid bid = event.bid();
                    assertThat(bid.price()).isBetween(100L, 100_000_000L);
                    assertThat(CHANNEL.matcher(bid.channel()).matches()).as(bid.channel()).isTrue();
                    assertThat(bid.url()).startsWith("https://www.nexmark.com/").contains("/item.htm?query=1");
                }
            }
        }
        assertThat(share(DEFAULT_RUN, e -> e.bid() != null, e -> !e.bid().channel().startsWith("channel-")))
                .isCloseTo(0.5, within(0.02));
    }

    @Test
    void eventsAverageTheirConfiguredSizes() {
        checkAverageSizes(DEFAULT_RUN, 200, 500, 100);
        checkAverageSizes(generate(new NexmarkGenerator(NexmarkConfig.defaults().withAvgBytes(1000, 2000, 300)),
                20_000), 1000, 2000, 300);
        // Smaller than the fixed part: no padding at all.
        for (Event event : generate(new NexmarkGenerator(NexmarkConfig.defaults().withAvgBytes(10, 10, 10)), 500)) {
            assertThat(extra(event)).isEmpty();
        }
    }

    private static void checkReferences(NexmarkGenerator generator, List<Event> run, long auctionWindow,
            long personWindow) {
        long lastPerson = FIRST_PERSON_ID - 1;
        long lastAuction = FIRST_AUCTION_ID - 1;
        for (int n = 0; n < run.size(); n++) {
            Event event = run.get(n);
            switch (event.kind()) {
                case PERSON -> {
                    assertThat(event.person().id()).isEqualTo(lastPerson + 1);
                    lastPerson++;
                }
                case AUCTION -> {
                    assertThat(event.auction().id()).isEqualTo(lastAuction + 1);
                    lastAuction++;
                    assertThat(event.auction().seller()).isBetween(Math.max(FIRST_PERSON_ID, lastPerson - personWindow),
                            lastPerson);
                }
                case BID -> {
                    assertThat(event.bid().auction())
                            .isBetween(Math.max(FIRST_AUCTION_ID, lastAuction - auctionWindow), lastAuction);
                    assertThat(event.bid().bidder()).isBetween(Math.max(FIRST_PERSON_ID, lastPerson - personWindow),
                            lastPerson);
                }
            }
            assertThat(generator.lastPersonId(n)).isEqualTo(lastPerson);
            assertThat(generator.lastAuctionId(n)).isEqualTo(lastAuction);
        }
    }

    private static void checkAverageSizes(List<Event> run, int person, int auction, int bid) {
        Map<Event.Kind, double[]> sums = new EnumMap<>(Event.Kind.class);
        for (Event event : run) {
            double[] sum = sums.computeIfAbsent(event.kind(), k -> new double[2]);
            sum[0] += idealizedBytes(event);
            sum[1]++;
        }
        assertThat(sums.get(Event.Kind.PERSON)[0] / sums.get(Event.Kind.PERSON)[1]).isCloseTo(person,
                within(person * 0.02));
        assertThat(sums.get(Event.Kind.AUCTION)[0] / sums.get(Event.Kind.AUCTION)[1]).isCloseTo(auction,
                within(auction * 0.02));
        assertThat(sums.get(Event.Kind.BID)[0] / sums.get(Event.Kind.BID)[1]).isCloseTo(bid, within(bid * 0.02));
    }

    /** Nexmark's idealized size: 8 bytes per number field the references count, plus string lengths. */
    private static int idealizedBytes(Event event) {
        return switch (event.kind()) {
            case PERSON -> 8 + event.person().name().length() + event.person().emailAddress().length()
                    + event.person().creditCard().length() + event.person().city().length()
                    + event.person().state().length() + event.person().extra().length();
            case AUCTION -> 48 + event.auction().itemName().length() + event.auction().description().length()
                    + event.auction().extra().length();
            case BID -> 32 + event.bid().extra().length();
        };
    }

    private static String extra(Event event) {
        return switch (event.kind()) {
            case PERSON -> event.person().extra();
            case AUCTION -> event.auction().extra();
            case BID -> event.bid().extra();
        };
    }

    /** The event with its times zeroed (an auction keeps its length), to compare everything else. */
    private static Event withoutTime(Event event) {
        return switch (event.kind()) {
            case PERSON -> {
                Person p = event.person();
                yield Event.of(new Person(p.id(), p.name(), p.emailAddress(), p.creditCard(), p.city(), p.state(), 0,
                        p.extra()));
            }
            case AUCTION -> {
                Auction a = event.auction();
                yield Event.of(new Auction(a.id(), a.itemName(), a.description(), a.initialBid(), a.reserve(), 0,
                        a.expires() - a.dateTime(), a.seller(), a.category(), a.extra()));
            }
            case BID -> {
                Bid b = event.bid();
                yield Event.of(new Bid(b.auction(), b.bidder(), b.price(), b.channel(), b.url(), 0, b.extra()));
            }
        };
    }

    private static double share(List<Event> run, Predicate<Event> of, Predicate<Event> matching) {
        long all = run.stream().filter(of).count();
        long matches = run.stream().filter(of).filter(matching).count();
        return (double) matches / all;
    }

    private static List<Event> generate(NexmarkGenerator generator, int count) {
        List<Event> events = new ArrayList<>(count);
        for (int n = 0; n < count; n++) {
            events.add(generator.event(n));
        }
        return events;
    }
}
