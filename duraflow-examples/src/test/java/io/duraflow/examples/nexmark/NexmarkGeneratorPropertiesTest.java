package io.duraflow.examples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.math.BigInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The generator's rules for single events anywhere in a long run (up to 10^15 events, over three
 * years of event time at the default rate), found without generating what came before: the
 * events a rule relates an event to are generated on their own, by number.
 */
class NexmarkGeneratorPropertiesTest {
    private static final long FAR = 1_000_000_000_000_000L;
    private static final NexmarkGenerator DEFAULT = new NexmarkGenerator(NexmarkConfig.defaults());

    @Property(tries = 200)
    void anEventDependsOnlyOnItsNumber(@ForAll @LongRange(min = 0, max = FAR) long n,
            @ForAll @LongRange(min = 0, max = FAR) long other) {
        Event first = DEFAULT.event(n);
        DEFAULT.event(other);
        assertThat(new NexmarkGenerator(NexmarkConfig.defaults()).event(n)).isEqualTo(first)
                .isEqualTo(DEFAULT.event(n));
    }

    @Property(tries = 200)
    void referencesPointToEventsGeneratedBefore(@ForAll @LongRange(min = 0, max = FAR) long n) {
        Event event = DEFAULT.event(n);
        Event person = previous(n, Event.Kind.PERSON);
        Event auction = previous(n, Event.Kind.AUCTION);
        Person previousPerson = person == null ? null : person.person();
        Auction previousAuction = auction == null ? null : auction.auction();
        switch (event.kind()) {
            case PERSON -> assertThat(event.person().id())
                    .isEqualTo(previousPerson == null ? NexmarkConfig.FIRST_PERSON_ID : previousPerson.id() + 1);
            case AUCTION -> {
                assertThat(event.auction().id()).isEqualTo(
                        previousAuction == null ? NexmarkConfig.FIRST_AUCTION_ID : previousAuction.id() + 1);
                assertThat(previousPerson).isNotNull();
                assertThat(event.auction().seller()).isBetween(NexmarkConfig.FIRST_PERSON_ID, previousPerson.id());
            }
            case BID -> {
                assertThat(previousAuction).isNotNull();
                assertThat(event.bid().auction()).isBetween(
                        Math.max(NexmarkConfig.FIRST_AUCTION_ID, previousAuction.id() - 100), previousAuction.id());
                assertThat(event.bid().bidder()).isBetween(
                        Math.max(NexmarkConfig.FIRST_PERSON_ID, previousPerson.id() - 999), previousPerson.id());
            }
        }
    }

    @Property(tries = 200)
    void inOrderTimeIsTheFormulaWithoutOverflow(@ForAll @LongRange(min = 0, max = FAR) long n,
            @ForAll @LongRange(min = 1, max = NexmarkConfig.MAX_EVENTS_PER_SECOND) long rate) {
        NexmarkGenerator generator = new NexmarkGenerator(NexmarkConfig.defaults().withEventsPerSecond(rate));
        BigInteger expected = BigInteger.valueOf(n).multiply(BigInteger.valueOf(1000))
                .divide(BigInteger.valueOf(rate)).add(BigInteger.valueOf(NexmarkConfig.DEFAULT_FIRST_EVENT_TIME_MS));
        assertThat(generator.inOrderTimeMs(n)).isEqualTo(expected.longValueExact());
    }

    @Property(tries = 200)
    void aTimestampIsItsInOrderTimeLessAtMostTheBound(@ForAll @LongRange(min = 0, max = FAR) long n,
            @ForAll @IntRange(min = 0, max = 3_600_000) int bound) {
        NexmarkGenerator generator = new NexmarkGenerator(NexmarkConfig.defaults().withMaxOutOfOrdernessMs(bound));
        long inOrder = generator.inOrderTimeMs(n);
        assertThat(generator.event(n).timestamp()).isBetween(inOrder - bound, inOrder)
                .isEqualTo(generator.timestampMs(n));
    }

    @Property(tries = 200)
    void theSerializerReadsBackWhatItWrote(@ForAll @LongRange(min = 0, max = FAR) long n) {
        Event event = DEFAULT.event(n);
        DataWriter out = new DataWriter();
        Event.TYPE.write(event, out);
        DataReader in = new DataReader(out.toByteArray());
        assertThat(Event.TYPE.read(in)).isEqualTo(event);
        assertThat(in.hasRemaining()).isFalse();
    }

    /** The newest event of {@code kind} before {@code n}, generated on its own; null if there is none. */
    private static Event previous(long n, Event.Kind kind) {
        for (long m = n - 1; m >= 0 && m >= n - 2L * NexmarkConfig.defaults().totalProportion(); m--) {
            if (DEFAULT.kindOf(m) == kind) {
                return DEFAULT.event(m);
            }
        }
        return null;
    }
}
