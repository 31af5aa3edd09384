package io.duraflow.examples.nexmark;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;

/**
 * One Nexmark event: exactly one of {@code person}, {@code auction} and {@code bid} is set, the
 * other two are null. A record of three nullable parts rather than a sealed interface so that
 * {@link Types#record} serializes it: {@link #TYPE} writes, for each part in order, a presence
 * byte and, when present, the part's components in declaration order (numbers as signed
 * varlongs, strings with a presence byte).
 *
 * <p>{@link #TYPE}'s description names the components of all three parts, not only their
 * classes as {@code Types.record(Event.class)} alone would: the description is part of the plan
 * fingerprint, so processes that disagree on the model refuse to run a job together.
 */
public record Event(Person person, Auction auction, Bid bid) {
    /** The serializer of events; the only way events cross processes. */
    public static final TypeSerializer<Event> TYPE = describedInFull(Types.record(Event.class));

    /** Which part an event holds. */
    public enum Kind {
        PERSON,
        AUCTION,
        BID
    }

    public Event {
        int parts = (person != null ? 1 : 0) + (auction != null ? 1 : 0) + (bid != null ? 1 : 0);
        if (parts != 1) {
            throw new IllegalArgumentException("a Nexmark event holds exactly one of person, auction and bid, got "
                    + parts);
        }
    }

    public static Event of(Person person) {
        return new Event(person, null, null);
    }

    public static Event of(Auction auction) {
        return new Event(null, auction, null);
    }

    public static Event of(Bid bid) {
        return new Event(null, null, bid);
    }

    private static TypeSerializer<Event> describedInFull(TypeSerializer<Event> serializer) {
        String description = "nexmark-event(" + Types.record(Person.class).description() + ","
                + Types.record(Auction.class).description() + "," + Types.record(Bid.class).description() + ")";
        return new TypeSerializer<>() {
            @Override
            public void write(Event value, DataWriter out) {
                serializer.write(value, out);
            }

            @Override
            public Event read(DataReader in) {
                return serializer.read(in);
            }

            @Override
            public String description() {
                return description;
            }

            @Override
            public String toString() {
                return description;
            }
        };
    }

    public Kind kind() {
        return person != null ? Kind.PERSON : auction != null ? Kind.AUCTION : Kind.BID;
    }

    /**
     * The event time, epoch milliseconds: the {@code dateTime} of the part it holds. What a
     * timestamp assigner of event-time jobs reads.
     */
    public long timestamp() {
        return person != null ? person.dateTime() : auction != null ? auction.dateTime() : bid.dateTime();
    }
}
