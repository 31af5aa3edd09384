package io.duraflow.examples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import org.junit.jupiter.api.Test;

class NexmarkEventTest {
    private static final Person PERSON = new Person(1000, "Peter Shultz", "abc@de.com", "0001 0002 0003 0004",
            "Boise", "ID", 1_436_918_400_000L, "xyz");
    private static final Auction AUCTION = new Auction(1001, "item", "a fine item", 150, 900, 1_436_918_400_001L,
            1_436_918_400_003L, 1000, 12, "");
    private static final Bid BID = new Bid(1001, 1000, 2_500, "Google",
            "https://www.nexmark.com/a/b/c/item.htm?query=1", 1_436_918_400_002L, "pad");

    @Test
    void anEventHoldsExactlyOnePart() {
        assertThat(Event.of(PERSON).kind()).isEqualTo(Event.Kind.PERSON);
        assertThat(Event.of(AUCTION).kind()).isEqualTo(Event.Kind.AUCTION);
        assertThat(Event.of(BID).kind()).isEqualTo(Event.Kind.BID);
        assertThatThrownBy(() -> new Event(null, null, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a Nexmark event holds exactly one of person, auction and bid, got 0");
        assertThatThrownBy(() -> new Event(PERSON, null, BID)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a Nexmark event holds exactly one of person, auction and bid, got 2");
    }

    @Test
    void theTimestampIsThePartsDateTime() {
        assertThat(Event.of(PERSON).timestamp()).isEqualTo(PERSON.dateTime());
        assertThat(Event.of(AUCTION).timestamp()).isEqualTo(AUCTION.dateTime());
        assertThat(Event.of(BID).timestamp()).isEqualTo(BID.dateTime());
    }

    @Test
    void everyKindCrossesTheSerializerUnchanged() {
        DataWriter out = new DataWriter();
        for (Event event : new Event[] {Event.of(PERSON), Event.of(AUCTION), Event.of(BID)}) {
            out.reset();
            Event.TYPE.write(event, out);
            DataReader in = new DataReader(out.toByteArray());
            assertThat(Event.TYPE.read(in)).isEqualTo(event);
            assertThat(in.hasRemaining()).isFalse();
        }
        // A bid of the default generator is about its 100 idealized bytes on the wire, not more.
        Event bid = new NexmarkGenerator(NexmarkConfig.defaults()).event(4);
        out.reset();
        Event.TYPE.write(bid, out);
        assertThat(out.position()).isBetween(60, 200);
    }

    @Test
    void theSerializersDescriptionNamesEveryComponent() {
        // The plan fingerprint holds this description: a change of any part must show in it.
        assertThat(Event.TYPE.description()).startsWith("nexmark-event(record(io.duraflow.examples.nexmark.Person,")
                .contains("emailAddress:java.lang.String", "initialBid:long", "expires:long", "channel:",
                        "bidder:long", "extra:java.lang.String");
    }
}
