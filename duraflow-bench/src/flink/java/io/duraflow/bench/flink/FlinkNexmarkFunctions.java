package io.duraflow.bench.flink;

import io.duraflow.examples.nexmark.Auction;
import io.duraflow.examples.nexmark.Bid;
import io.duraflow.examples.nexmark.JoinQueries.CategoryAverage;
import io.duraflow.examples.nexmark.JoinQueries.LocalItem;
import io.duraflow.examples.nexmark.JoinQueries.NewSeller;
import io.duraflow.examples.nexmark.Person;
import io.duraflow.examples.nexmark.WindowQueries.BidderSession;
import io.duraflow.examples.nexmark.WindowQueries.HighestBid;
import io.duraflow.examples.nexmark.WindowQueries.HotItem;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The functions of {@link FlinkNexmarkQueries}, each the Flink twin of Duraflow's function of the
 * same name in {@code WindowQueries} or {@code JoinQueries}: the same state, the same timers, the
 * same rules. Flink's {@link TimeWindow#getEnd()} is exclusive, like Duraflow's window end.
 */
final class FlinkNexmarkFunctions {
  private FlinkNexmarkFunctions() {}

  static final class Count<T> implements AggregateFunction<T, Long, Long> {
    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(T value, Long count) {
      return count + 1;
    }

    @Override
    public Long getResult(Long count) {
      return count;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  static final class CountOfAuction extends ProcessWindowFunction<Long, HotItem, Long, TimeWindow> {
    @Override
    public void process(Long auction, Context context, Iterable<Long> counts, Collector<HotItem> out) {
      out.collect(new HotItem(auction, counts.iterator().next(), context.window().getEnd()));
    }
  }

  /** q5: every auction of the window with the most bids (ties included). */
  static final class MostBids extends ProcessWindowFunction<HotItem, HotItem, Long, TimeWindow> {
    @Override
    public void process(Long windowEnd, Context context, Iterable<HotItem> items, Collector<HotItem> out) {
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

  /** q7: the bids with the highest price (window end 0 until the window is known). */
  static final class HighestOfBids implements AggregateFunction<Bid, List<HighestBid>, List<HighestBid>> {
    @Override
    public List<HighestBid> createAccumulator() {
      return List.of();
    }

    @Override
    public List<HighestBid> add(Bid bid, List<HighestBid> highest) {
      return highest(highest, List.of(new HighestBid(0, bid.auction(), bid.bidder(), bid.price(), bid.dateTime())));
    }

    @Override
    public List<HighestBid> getResult(List<HighestBid> highest) {
      return highest;
    }

    @Override
    public List<HighestBid> merge(List<HighestBid> a, List<HighestBid> b) {
      return highest(a, b);
    }
  }

  /** The bids of both lists with the highest price; a new list (as Duraflow's {@code WindowQueries.highest}). */
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
    public void process(Long auction, Context context, Iterable<List<HighestBid>> highest,
        Collector<HighestBid> out) {
      for (HighestBid bid : highest.iterator().next()) {
        out.collect(new HighestBid(context.window().getEnd(), bid.auction(), bid.bidder(), bid.price(),
            bid.dateTime()));
      }
    }
  }

  static final class HighestOfAll extends ProcessWindowFunction<HighestBid, HighestBid, Long, TimeWindow> {
    @Override
    public void process(Long windowEnd, Context context, Iterable<HighestBid> bids, Collector<HighestBid> out) {
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
    public void process(Long bidder, Context context, Iterable<Long> counts, Collector<BidderSession> out) {
      out.collect(new BidderSession(bidder, counts.iterator().next(), context.window().getStart(),
          context.window().getEnd()));
    }
  }

  /** q3: the seller (once it came) and the auctions that came before it. */
  static final class SellerJoin extends KeyedCoProcessFunction<Long, Person, Auction, LocalItem> {
    private transient ValueState<Person> seller;
    private transient ListState<Auction> waiting;

    @Override
    public void open(OpenContext context) {
      seller = getRuntimeContext().getState(new ValueStateDescriptor<>("seller", FlinkNexmarkQueries.PERSON));
      waiting = getRuntimeContext().getListState(
          new ListStateDescriptor<>("waiting-auctions", FlinkNexmarkQueries.AUCTION));
    }

    @Override
    public void processElement1(Person person, Context context, Collector<LocalItem> out) throws Exception {
      seller.update(person);
      Iterable<Auction> auctions = waiting.get();
      if (auctions != null) {
        for (Auction auction : auctions) {
          out.collect(new LocalItem(person.name(), person.city(), person.state(), auction.id()));
        }
      }
      waiting.clear();
    }

    @Override
    public void processElement2(Auction auction, Context context, Collector<LocalItem> out) throws Exception {
      Person person = seller.value();
      if (person == null) {
        waiting.add(auction);
      } else {
        out.collect(new LocalItem(person.name(), person.city(), person.state(), auction.id()));
      }
    }
  }

  /**
   * q4, per auction: its highest bid within its time; at its expiry (event time) emits (category,
   * final price) once if it had one, then drops later bids.
   */
  static final class FinalPrice extends KeyedCoProcessFunction<Long, Auction, Bid, Tuple2<Long, Long>> {
    private transient ValueState<Auction> auction;
    private transient ValueState<Long> highest;
    private transient ListState<Bid> early;
    private transient ValueState<Boolean> closed;

    @Override
    public void open(OpenContext context) {
      auction = getRuntimeContext().getState(new ValueStateDescriptor<>("auction", FlinkNexmarkQueries.AUCTION));
      highest = getRuntimeContext().getState(new ValueStateDescriptor<>("highest-price", Types.LONG));
      early = getRuntimeContext().getListState(new ListStateDescriptor<>("early-bids", FlinkNexmarkQueries.BID));
      closed = getRuntimeContext().getState(new ValueStateDescriptor<>("closed", Types.BOOLEAN));
    }

    @Override
    public void processElement1(Auction value, Context context, Collector<Tuple2<Long, Long>> out) throws Exception {
      auction.update(value);
      Iterable<Bid> bids = early.get();
      if (bids != null) {
        for (Bid bid : bids) {
          offer(value, bid);
        }
      }
      early.clear();
      context.timerService().registerEventTimeTimer(value.expires());
    }

    @Override
    public void processElement2(Bid bid, Context context, Collector<Tuple2<Long, Long>> out) throws Exception {
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

    private void offer(Auction current, Bid bid) throws Exception {
      if (bid.dateTime() >= current.dateTime() && bid.dateTime() <= current.expires()) {
        Long price = highest.value();
        if (price == null || bid.price() > price) {
          highest.update(bid.price());
        }
      }
    }

    @Override
    public void onTimer(long time, OnTimerContext context, Collector<Tuple2<Long, Long>> out) throws Exception {
      Auction current = auction.value();
      Long price = highest.value();
      if (current != null && price != null) {
        out.collect(Tuple2.of(current.category(), price));
      }
      auction.clear();
      highest.clear();
      closed.update(true);
    }
  }

  /** q4, per category: count and sum of the final prices so far; emits the average each time. */
  static final class AveragePerCategory extends KeyedProcessFunction<Long, Tuple2<Long, Long>, CategoryAverage> {
    private transient ValueState<Tuple2<Long, Long>> totals;

    @Override
    public void open(OpenContext context) {
      totals = getRuntimeContext().getState(new ValueStateDescriptor<>("count-and-sum", FlinkNexmarkQueries.PAIR));
    }

    @Override
    public void processElement(Tuple2<Long, Long> finalPrice, Context context, Collector<CategoryAverage> out)
        throws Exception {
      Tuple2<Long, Long> current = totals.value();
      long count = (current == null ? 0 : current.f0) + 1;
      long sum = (current == null ? 0 : current.f1) + finalPrice.f1;
      totals.update(Tuple2.of(count, sum));
      out.collect(new CategoryAverage(finalPrice.f0, count, sum, (double) sum / count));
    }
  }

  /** q8, per person: the windows they registered in (with their name) and the windows they sold in. */
  static final class SameWindow extends KeyedCoProcessFunction<Long, Person, Auction, NewSeller> {
    private final long size;
    private transient MapState<Long, String> registered;
    private transient MapState<Long, Boolean> sold;

    SameWindow(long size) {
      this.size = size;
    }

    @Override
    public void open(OpenContext context) {
      registered = getRuntimeContext().getMapState(new MapStateDescriptor<>("registered", Types.LONG, Types.STRING));
      sold = getRuntimeContext().getMapState(new MapStateDescriptor<>("sold", Types.LONG, Types.BOOLEAN));
    }

    private long windowStart(long timestamp, Context context) {
      long start = TimeWindow.getWindowStartWithOffset(timestamp, 0, size);
      context.timerService().registerEventTimeTimer(start + size - 1);
      return start;
    }

    private boolean isLate(long timestamp, Context context) {
      return TimeWindow.getWindowStartWithOffset(timestamp, 0, size) + size - 1
          <= context.timerService().currentWatermark();
    }

    @Override
    public void processElement1(Person person, Context context, Collector<NewSeller> out) throws Exception {
      if (!isLate(person.dateTime(), context)) {
        registered.put(windowStart(person.dateTime(), context), person.name());
      }
    }

    @Override
    public void processElement2(Auction auction, Context context, Collector<NewSeller> out) throws Exception {
      if (!isLate(auction.dateTime(), context)) {
        sold.put(windowStart(auction.dateTime(), context), true);
      }
    }

    @Override
    public void onTimer(long time, OnTimerContext context, Collector<NewSeller> out) throws Exception {
      long start = time - size + 1;
      String name = registered.get(start);
      if (name != null && sold.contains(start)) {
        out.collect(new NewSeller(context.getCurrentKey(), name, start));
      }
      registered.remove(start);
      sold.remove(start);
    }
  }
}
