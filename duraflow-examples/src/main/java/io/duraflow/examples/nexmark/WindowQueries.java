package io.duraflow.examples.nexmark;

import io.duraflow.api.Flow;
import io.duraflow.api.functions.AggregateFunction;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.api.windowing.EventTimeSessionWindows;
import io.duraflow.api.windowing.ProcessWindowFunction;
import io.duraflow.api.windowing.SlidingEventTimeWindows;
import io.duraflow.api.windowing.TimeWindow;
import io.duraflow.api.windowing.TumblingEventTimeWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Nexmark's windowed queries over bids: q5 (sliding), q7 (tumbling), q11 (sessions). */
public final class WindowQueries {
    private WindowQueries() {}

    /** q5's result: an auction with the most bids in the sliding window that ends at {@code windowEnd}. */
    public record HotItem(long auction, long bids, long windowEnd) {}

    /** q7's result: a bid with the highest price in the tumbling window that ends at {@code windowEnd}. */
    public record HighestBid(long windowEnd, long auction, long bidder, long price, long dateTime) {}

    /** q11's result: a bidder's session of bids, no two more than the gap apart, {@code [start, end)}. */
    public record BidderSession(long bidder, long bids, long start, long end) {}

    static final TypeSerializer<HotItem> HOT_ITEM = Types.record(HotItem.class);
    static final TypeSerializer<HighestBid> HIGHEST_BID = Types.record(HighestBid.class);
    static final TypeSerializer<BidderSession> BIDDER_SESSION = Types.record(BidderSession.class);
    private static final TypeSerializer<List<HighestBid>> HIGHEST_BIDS = Types.list(HIGHEST_BID);

    /**
     * q5, hot items: the number of bids per auction in sliding windows ({@code size} every {@code
     * slide}), then per window the auctions with the most. The second step keys the counts by
     * window end: each count carries its window's max timestamp, so a tumbling window of the
     * slide's length gathers exactly one sliding window's counts.
     */
    static Flow<HotItem> q5(Flow<Bid> bids, Duration size, Duration slide) {
        return bids.keyBy(Bid::auction, Types.LONG)
                .window(SlidingEventTimeWindows.of(size, slide))
                .aggregate(new Count<>(), new CountOfAuction(), Types.LONG, HOT_ITEM).name("q5: bids per auction")
                .keyBy(HotItem::windowEnd, Types.LONG)
                .window(TumblingEventTimeWindows.of(slide))
                .process(new MostBids(), HOT_ITEM).name("q5: hot items");
    }

    /**
     * q7, highest bid: per tumbling window, the bids with the highest price. Each auction's
     * window keeps its highest bids (ties included), then the window's across auctions.
     */
    static Flow<HighestBid> q7(Flow<Bid> bids, Duration size) {
        return bids.keyBy(Bid::auction, Types.LONG)
                .window(TumblingEventTimeWindows.of(size))
                .aggregate(new HighestOfBids(), new EachHighest(), HIGHEST_BIDS, HIGHEST_BID).name("q7: highest per auction")
                .keyBy(HighestBid::windowEnd, Types.LONG)
                .window(TumblingEventTimeWindows.of(size))
                .process(new HighestOfAll(), HIGHEST_BID).name("q7: highest bids");
    }

    /** q11, user sessions: each bidder's sessions of bids and how many bids each has. */
    static Flow<BidderSession> q11(Flow<Bid> bids, Duration gap) {
        return bids.keyBy(Bid::bidder, Types.LONG)
                .window(EventTimeSessionWindows.withGap(gap))
                .aggregate(new Count<>(), new SessionOfBidder(), Types.LONG, BIDDER_SESSION).name("q11: user sessions");
    }

    static final class Count<T> implements AggregateFunction<T, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Long count, T value) {
            return count + 1;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }

        @Override
        public Long getResult(Long count) {
            return count;
        }
    }

    static final class CountOfAuction extends ProcessWindowFunction<Long, HotItem, Long, TimeWindow> {
        @Override
        public void process(Long auction, Context<TimeWindow> context, Iterable<Long> counts, Collector<HotItem> out) {
            out.collect(new HotItem(auction, counts.iterator().next(), context.window().end()));
        }
    }

    static final class MostBids extends ProcessWindowFunction<HotItem, HotItem, Long, TimeWindow> {
        @Override
        public void process(Long windowEnd, Context<TimeWindow> context, Iterable<HotItem> items,
                Collector<HotItem> out) {
            long most = 0;
            for (HotItem item : items) {
                most = Math.max(most, item.bids());
            }
            for (HotItem item : items) {
                if (item.bids() == most) {
                    out.collect(item);
                }
            }
        }
    }

    /** The bids with the highest price (window end 0 until the window is known). */
    static final class HighestOfBids implements AggregateFunction<Bid, List<HighestBid>, List<HighestBid>> {
        @Override
        public List<HighestBid> createAccumulator() {
            return List.of();
        }

        @Override
        public List<HighestBid> add(List<HighestBid> highest, Bid bid) {
            HighestBid candidate = new HighestBid(0, bid.auction(), bid.bidder(), bid.price(), bid.dateTime());
            return highest(highest, List.of(candidate));
        }

        @Override
        public List<HighestBid> merge(List<HighestBid> a, List<HighestBid> b) {
            return highest(a, b);
        }

        @Override
        public List<HighestBid> getResult(List<HighestBid> highest) {
            return highest;
        }
    }

    /** The bids of both lists with the highest price; a new list (accumulators are values). */
    static List<HighestBid> highest(List<HighestBid> a, List<HighestBid> b) {
        if (a.isEmpty() || !b.isEmpty() && b.get(0).price() > a.get(0).price()) {
            return b;
        }
        if (b.isEmpty() || b.get(0).price() < a.get(0).price()) {
            return a;
        }
        List<HighestBid> both = new ArrayList<>(a.size() + b.size());
        both.addAll(a);
        both.addAll(b);
        return both;
    }

    static final class EachHighest extends ProcessWindowFunction<List<HighestBid>, HighestBid, Long, TimeWindow> {
        @Override
        public void process(Long auction, Context<TimeWindow> context, Iterable<List<HighestBid>> highest,
                Collector<HighestBid> out) {
            for (HighestBid bid : highest.iterator().next()) {
                out.collect(new HighestBid(context.window().end(), bid.auction(), bid.bidder(), bid.price(),
                        bid.dateTime()));
            }
        }
    }

    static final class HighestOfAll extends ProcessWindowFunction<HighestBid, HighestBid, Long, TimeWindow> {
        @Override
        public void process(Long windowEnd, Context<TimeWindow> context, Iterable<HighestBid> bids,
                Collector<HighestBid> out) {
            long highest = Long.MIN_VALUE;
            for (HighestBid bid : bids) {
                highest = Math.max(highest, bid.price());
            }
            for (HighestBid bid : bids) {
                if (bid.price() == highest) {
                    out.collect(bid);
                }
            }
        }
    }

    static final class SessionOfBidder extends ProcessWindowFunction<Long, BidderSession, Long, TimeWindow> {
        @Override
        public void process(Long bidder, Context<TimeWindow> context, Iterable<Long> counts,
                Collector<BidderSession> out) {
            out.collect(new BidderSession(bidder, counts.iterator().next(), context.window().start(),
                    context.window().end()));
        }
    }
}
