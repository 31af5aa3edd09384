package io.duraflow.examples.nexmark;

import io.duraflow.api.Flow;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedCoProcessFunction;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.api.windowing.TimeWindow;
import java.time.Duration;
import java.util.Set;

/** Nexmark's joins: q3 (persons and auctions), q4 (auctions and bids), q8 (persons and auctions per window). */
public final class JoinQueries {
    private JoinQueries() {}

    /** q3's result: an auction of category {@link #Q3_CATEGORY} by a seller from {@link #Q3_STATES}. */
    public record LocalItem(String name, String city, String state, long auction) {}

    /** q4's result: the average final price of the closed auctions of a category so far. */
    public record CategoryAverage(long category, long auctions, long sumOfFinalPrices, double average) {}

    /** q8's result: a person who put up an auction in the tumbling window in which they registered. */
    public record NewSeller(long person, String name, long windowStart) {}

    public static final long Q3_CATEGORY = 10;
    public static final Set<String> Q3_STATES = Set.of("OR", "ID", "CA");

    static final TypeSerializer<LocalItem> LOCAL_ITEM = Types.record(LocalItem.class);
    static final TypeSerializer<CategoryAverage> CATEGORY_AVERAGE = Types.record(CategoryAverage.class);
    static final TypeSerializer<NewSeller> NEW_SELLER = Types.record(NewSeller.class);
    private static final TypeSerializer<Person> PERSON = Types.record(Person.class);
    private static final TypeSerializer<Auction> AUCTION = Types.record(Auction.class);
    private static final TypeSerializer<Bid> BID = Types.record(Bid.class);

    /**
     * q3, local item suggestion: auctions of category 10 joined with their sellers from Oregon,
     * Idaho or California, whichever arrives first. Both sides stay in state (a regular join).
     */
    static Flow<LocalItem> q3(Flow<Person> persons, Flow<Auction> auctions) {
        return persons.filter(person -> Q3_STATES.contains(person.state())).name("q3: persons of OR, ID, CA")
                .keyBy(Person::id, Types.LONG)
                .connect(auctions.filter(auction -> auction.category() == Q3_CATEGORY).name("q3: category 10")
                        .keyBy(Auction::seller, Types.LONG))
                .process(new SellerJoin(), LOCAL_ITEM).name("q3: local items");
    }

    /**
     * q4, average price per category: an auction's final price is its highest bid between its
     * start and its expiry; once the watermark passes the expiry, it goes to its category, which
     * emits the average of its closed auctions so far.
     */
    static Flow<CategoryAverage> q4(Flow<Auction> auctions, Flow<Bid> bids) {
        return auctions.keyBy(Auction::id, Types.LONG)
                .connect(bids.keyBy(Bid::auction, Types.LONG))
                .process(new FinalPrice(), Types.tuple(Types.LONG, Types.LONG)).name("q4: final prices")
                .keyBy(io.duraflow.api.types.Tuple2::f0, Types.LONG)
                .process(new AveragePerCategory(), CATEGORY_AVERAGE).name("q4: average per category");
    }

    /**
     * q8, monitor new users: the persons who registered and put up an auction in the same tumbling
     * window; emitted when the window ends.
     */
    static Flow<NewSeller> q8(Flow<Person> persons, Flow<Auction> auctions, Duration window) {
        long size = window.toMillis();
        return persons.keyBy(Person::id, Types.LONG)
                .connect(auctions.keyBy(Auction::seller, Types.LONG))
                .process(new SameWindow(size), NEW_SELLER).name("q8: new sellers");
    }

    static final class SellerJoin extends KeyedCoProcessFunction<Long, Person, Auction, LocalItem> {
        private transient ValueState<Person> seller;
        private transient ListState<Auction> waiting;

        @Override
        public void open(RuntimeContext context) {
            seller = context.state().getState(new ValueStateDescriptor<>("seller", PERSON));
            waiting = context.state().getListState(new ListStateDescriptor<>("waiting-auctions", AUCTION));
        }

        @Override
        public void processElement1(Person person, KeyedProcessFunction.Context<Long> context,
                Collector<LocalItem> out) {
            seller.update(person);
            for (Auction auction : waiting.get()) {
                out.collect(new LocalItem(person.name(), person.city(), person.state(), auction.id()));
            }
            waiting.clear();
        }

        @Override
        public void processElement2(Auction auction, KeyedProcessFunction.Context<Long> context,
                Collector<LocalItem> out) {
            Person person = seller.value();
            if (person == null) {
                waiting.add(auction);
            } else {
                out.collect(new LocalItem(person.name(), person.city(), person.state(), auction.id()));
            }
        }
    }

    /**
     * Per auction: the auction, the highest price of its bids within its time so far, and the
     * bids that came before it; at its expiry (event time), emits (category, final price) once if it
     * had a bid, and remembers that it closed so later bids are dropped.
     */
    static final class FinalPrice extends KeyedCoProcessFunction<Long, Auction, Bid,
            io.duraflow.api.types.Tuple2<Long, Long>> {
        private transient ValueState<Auction> auction;
        private transient ValueState<Long> highest;
        private transient ListState<Bid> early;
        private transient ValueState<Boolean> closed;

        @Override
        public void open(RuntimeContext context) {
            auction = context.state().getState(new ValueStateDescriptor<>("auction", AUCTION));
            highest = context.state().getState(new ValueStateDescriptor<>("highest-price", Types.LONG));
            early = context.state().getListState(new ListStateDescriptor<>("early-bids", BID));
            closed = context.state().getState(new ValueStateDescriptor<>("closed", Types.BOOLEAN));
        }

        @Override
        public void processElement1(Auction value, KeyedProcessFunction.Context<Long> context,
                Collector<io.duraflow.api.types.Tuple2<Long, Long>> out) {
            auction.update(value);
            for (Bid bid : early.get()) {
                offer(value, bid);
            }
            early.clear();
            context.timerService().registerEventTimeTimer(value.expires());
        }

        @Override
        public void processElement2(Bid bid, KeyedProcessFunction.Context<Long> context,
                Collector<io.duraflow.api.types.Tuple2<Long, Long>> out) {
            if (closed.value() != null) {
                return;
            }
            Auction current = auction.value();
            if (current == null) {
                early.add(bid);
            } else {
                offer(current, bid);
            }
        }

        private void offer(Auction current, Bid bid) {
            if (bid.dateTime() >= current.dateTime() && bid.dateTime() <= current.expires()) {
                Long price = highest.value();
                if (price == null || bid.price() > price) {
                    highest.update(bid.price());
                }
            }
        }

        @Override
        public void onTimer(long time, KeyedProcessFunction.Context<Long> context,
                Collector<io.duraflow.api.types.Tuple2<Long, Long>> out) {
            Auction current = auction.value();
            Long price = highest.value();
            if (current != null && price != null) {
                out.collect(io.duraflow.api.types.Tuple2.of(current.category(), price));
            }
            auction.clear();
            highest.clear();
            closed.update(true);
        }
    }

    static final class AveragePerCategory extends KeyedProcessFunction<Long, io.duraflow.api.types.Tuple2<Long, Long>,
            CategoryAverage> {
        private transient ValueState<io.duraflow.api.types.Tuple2<Long, Long>> totals;

        @Override
        public void open(RuntimeContext context) {
            totals = context.state().getState(new ValueStateDescriptor<>("count-and-sum",
                    Types.tuple(Types.LONG, Types.LONG)));
        }

        @Override
        public void processElement(io.duraflow.api.types.Tuple2<Long, Long> finalPrice, Context<Long> context,
                Collector<CategoryAverage> out) {
            var current = totals.value();
            long count = (current == null ? 0 : current.f0()) + 1;
            long sum = (current == null ? 0 : current.f1()) + finalPrice.f1();
            totals.update(io.duraflow.api.types.Tuple2.of(count, sum));
            out.collect(new CategoryAverage(finalPrice.f0(), count, sum, (double) sum / count));
        }
    }

    /** Per person: the windows they registered in (with their name) and the windows they sold in. */
    static final class SameWindow extends KeyedCoProcessFunction<Long, Person, Auction, NewSeller> {
        private final long size;
        private transient MapState<Long, String> registered;
        private transient MapState<Long, Boolean> sold;

        SameWindow(long size) {
            this.size = size;
        }

        @Override
        public void open(RuntimeContext context) {
            registered = context.state().getMapState(new MapStateDescriptor<>("registered", Types.LONG, Types.STRING));
            sold = context.state().getMapState(new MapStateDescriptor<>("sold", Types.LONG, Types.BOOLEAN));
        }

        private long windowStart(long timestamp, KeyedProcessFunction.Context<Long> context) {
            long start = TimeWindow.windowStart(timestamp, 0, size);
            context.timerService().registerEventTimeTimer(start + size - 1);
            return start;
        }

        @Override
        public void processElement1(Person person, KeyedProcessFunction.Context<Long> context,
                Collector<NewSeller> out) {
            if (isLate(person.dateTime(), context)) {
                return;
            }
            registered.put(windowStart(person.dateTime(), context), person.name());
        }

        @Override
        public void processElement2(Auction auction, KeyedProcessFunction.Context<Long> context,
                Collector<NewSeller> out) {
            if (isLate(auction.dateTime(), context)) {
                return;
            }
            sold.put(windowStart(auction.dateTime(), context), true);
        }

        private boolean isLate(long timestamp, KeyedProcessFunction.Context<Long> context) {
            return TimeWindow.windowStart(timestamp, 0, size) + size - 1 <= context.timerService().currentWatermark();
        }

        @Override
        public void onTimer(long time, KeyedProcessFunction.Context<Long> context, Collector<NewSeller> out) {
            long start = time - size + 1;
            String name = registered.get(start);
            if (name != null && sold.contains(start)) {
                out.collect(new NewSeller(context.currentKey(), name, start));
            }
            registered.remove(start);
            sold.remove(start);
        }
    }
}
