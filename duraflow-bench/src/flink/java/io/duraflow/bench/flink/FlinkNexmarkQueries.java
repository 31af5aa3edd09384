package io.duraflow.bench.flink;

import io.duraflow.bench.NexmarkBenchmark;
import io.duraflow.examples.nexmark.Auction;
import io.duraflow.examples.nexmark.Bid;
import io.duraflow.examples.nexmark.Event;
import io.duraflow.examples.nexmark.JoinQueries;
import io.duraflow.examples.nexmark.JoinQueries.CategoryAverage;
import io.duraflow.examples.nexmark.JoinQueries.LocalItem;
import io.duraflow.examples.nexmark.JoinQueries.NewSeller;
import io.duraflow.examples.nexmark.NexmarkConfig;
import io.duraflow.examples.nexmark.NexmarkGenerator;
import io.duraflow.examples.nexmark.NexmarkQueries;
import io.duraflow.examples.nexmark.Person;
import io.duraflow.examples.nexmark.WindowQueries.BidderSession;
import io.duraflow.examples.nexmark.WindowQueries.HighestBid;
import io.duraflow.examples.nexmark.WindowQueries.HotItem;
import java.time.Duration;
import java.util.List;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

/**
 * The Nexmark queries of {@code NexmarkQueries} written with Flink 2.3's DataStream API, step for
 * step the same plans: the same windows, the same keys, the same tie rules, the same result
 * records (Duraflow's, as Flink POJOs), so that {@code NexmarkDigest} can compare the results.
 * The functions are in {@link FlinkNexmarkFunctions}.
 *
 * <p>The source is Flink's {@link DataGeneratorSource} over {@link NexmarkGenerator#event}, with
 * watermarks bounded by the out-of-orderness (0 by default) and timestamps from the events.
 * Flink deals the indexes {@code [0, N)} into one contiguous range per reader, where Duraflow's
 * {@code NexmarkSource} deals event numbers in strides (reader j of p reads j, j + p, ...); a
 * reader of contiguous ranges would run far ahead in event time of the other, whose watermark
 * holds every window of the first back until the end. {@link Events} therefore maps index i to
 * event {@code (i mod N/p) * p + i div (N/p)}: reader j of the equal ranges (what Flink 2.3's
 * {@code NumberSequenceIterator.split} makes of [0, N) when p divides N) gets Duraflow's stride j. The map is a bijection of {@code [0, N)} whatever the ranges are, so the events are
 * the same either way; N must be a multiple of p ({@link NexmarkBenchmark} rounds it).
 */
final class FlinkNexmarkQueries {
  static final TypeInformation<Event> EVENT = TypeInformation.of(Event.class);
  static final TypeInformation<Person> PERSON = TypeInformation.of(Person.class);
  static final TypeInformation<Auction> AUCTION = TypeInformation.of(Auction.class);
  static final TypeInformation<Bid> BID = TypeInformation.of(Bid.class);
  static final TypeInformation<LocalItem> LOCAL_ITEM = TypeInformation.of(LocalItem.class);
  static final TypeInformation<CategoryAverage> CATEGORY_AVERAGE = TypeInformation.of(CategoryAverage.class);
  static final TypeInformation<NewSeller> NEW_SELLER = TypeInformation.of(NewSeller.class);
  static final TypeInformation<HotItem> HOT_ITEM = TypeInformation.of(HotItem.class);
  static final TypeInformation<HighestBid> HIGHEST_BID = TypeInformation.of(HighestBid.class);
  static final TypeInformation<List<HighestBid>> HIGHEST_BIDS = Types.LIST(HIGHEST_BID);
  static final TypeInformation<BidderSession> BIDDER_SESSION = TypeInformation.of(BidderSession.class);
  static final TypeInformation<Tuple2<Long, Long>> PAIR = Types.TUPLE(Types.LONG, Types.LONG);

  private FlinkNexmarkQueries() {}

  /** Adds the source and {@code query}'s plan to {@code env}; returns its results. */
  static DataStream<?> build(StreamExecutionEnvironment env, String query, NexmarkBenchmark.Settings settings,
      int parallelism) {
    DataGeneratorSource<Event> generator = new DataGeneratorSource<>(
        new Events(settings.events(), parallelism, settings.eventRate(), settings.outOfOrdernessMs()),
        settings.events(), RateLimiterStrategy.noOp(), EVENT);
    DataStream<Event> source = env.fromSource(generator,
        WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofMillis(settings.outOfOrdernessMs()))
            .withTimestampAssigner((event, previous) -> event.timestamp()),
        "Nexmark events");
    Duration window = settings.window();
    return switch (query) {
      case "q0" -> bids(source).map(bid -> bid).returns(BID).name("q0: pass through");
      case "q1" -> bids(source).map(bid -> new Bid(bid.auction(), bid.bidder(),
              NexmarkQueries.toEuroCents(bid.price()), bid.channel(), bid.url(), bid.dateTime(), bid.extra()))
          .returns(BID).name("q1: currency conversion");
      case "q2" -> bids(source).filter(bid -> bid.auction() % NexmarkQueries.Q2_AUCTION_MODULUS == 0)
          .name("q2: selection").map(bid -> Tuple2.of(bid.auction(), bid.price())).returns(PAIR);
      case "q3" -> persons(source).filter(person -> JoinQueries.Q3_STATES.contains(person.state()))
          .name("q3: persons of OR, ID, CA").keyBy(Person::id, Types.LONG)
          .connect(auctions(source).filter(auction -> auction.category() == JoinQueries.Q3_CATEGORY)
              .name("q3: category 10").keyBy(Auction::seller, Types.LONG))
          .process(new FlinkNexmarkFunctions.SellerJoin(), LOCAL_ITEM).name("q3: local items");
      case "q4" -> auctions(source).keyBy(Auction::id, Types.LONG)
          .connect(bids(source).keyBy(Bid::auction, Types.LONG))
          .process(new FlinkNexmarkFunctions.FinalPrice(), PAIR).name("q4: final prices")
          .keyBy(pair -> pair.f0, Types.LONG)
          .process(new FlinkNexmarkFunctions.AveragePerCategory(), CATEGORY_AVERAGE)
          .name("q4: average per category");
      case "q5" -> bids(source).keyBy(Bid::auction, Types.LONG)
          .window(SlidingEventTimeWindows.of(window, settings.slide()))
          .aggregate(new FlinkNexmarkFunctions.Count<>(), new FlinkNexmarkFunctions.CountOfAuction(), Types.LONG,
              Types.LONG, HOT_ITEM).name("q5: bids per auction")
          .keyBy(HotItem::windowEnd, Types.LONG)
          .window(TumblingEventTimeWindows.of(settings.slide()))
          .process(new FlinkNexmarkFunctions.MostBids(), HOT_ITEM).name("q5: hot items");
      case "q7" -> bids(source).keyBy(Bid::auction, Types.LONG)
          .window(TumblingEventTimeWindows.of(window))
          .aggregate(new FlinkNexmarkFunctions.HighestOfBids(), new FlinkNexmarkFunctions.EachHighest(),
              HIGHEST_BIDS, HIGHEST_BIDS, HIGHEST_BID).name("q7: highest per auction")
          .keyBy(HighestBid::windowEnd, Types.LONG)
          .window(TumblingEventTimeWindows.of(window))
          .process(new FlinkNexmarkFunctions.HighestOfAll(), HIGHEST_BID).name("q7: highest bids");
      case "q8" -> persons(source).keyBy(Person::id, Types.LONG)
          .connect(auctions(source).keyBy(Auction::seller, Types.LONG))
          .process(new FlinkNexmarkFunctions.SameWindow(window.toMillis()), NEW_SELLER).name("q8: new sellers");
      case "q11" -> bids(source).keyBy(Bid::bidder, Types.LONG)
          .window(EventTimeSessionWindows.withGap(settings.gap()))
          .aggregate(new FlinkNexmarkFunctions.Count<>(), new FlinkNexmarkFunctions.SessionOfBidder(), Types.LONG,
              Types.LONG, BIDDER_SESSION).name("q11: user sessions");
      default -> throw new IllegalArgumentException("unknown Nexmark query '" + query + "'");
    };
  }

  private static DataStream<Bid> bids(DataStream<Event> events) {
    return events.filter(event -> event.bid() != null).name("Bids").map(Event::bid).returns(BID).name("Bid");
  }

  private static DataStream<Person> persons(DataStream<Event> events) {
    return events.filter(event -> event.person() != null).name("Persons").map(Event::person).returns(PERSON)
        .name("Person");
  }

  private static DataStream<Auction> auctions(DataStream<Event> events) {
    return events.filter(event -> event.auction() != null).name("Auctions").map(Event::auction).returns(AUCTION)
        .name("Auction");
  }

  /** Event number of generator index {@code index}: see the class comment. */
  static long eventNumber(long index, long events, int parallelism) {
    long range = events / parallelism;
    return index % range * parallelism + index / range;
  }

  /** Index i to {@link NexmarkGenerator#event} of {@link #eventNumber}; the generator is built per reader. */
  static final class Events implements GeneratorFunction<Long, Event> {
    private final long events;
    private final int parallelism;
    private final long eventRate;
    private final long outOfOrdernessMs;
    private transient NexmarkGenerator generator;

    Events(long events, int parallelism, long eventRate, long outOfOrdernessMs) {
      if (events % parallelism != 0) {
        throw new IllegalArgumentException("events (" + events + ") must be a multiple of the parallelism ("
            + parallelism + ")");
      }
      this.events = events;
      this.parallelism = parallelism;
      this.eventRate = eventRate;
      this.outOfOrdernessMs = outOfOrdernessMs;
    }

    @Override
    public void open(SourceReaderContext context) {
      generator = new NexmarkGenerator(NexmarkConfig.defaults().withEventsPerSecond(eventRate)
          .withMaxOutOfOrdernessMs(outOfOrdernessMs));
    }

    @Override
    public Event map(Long index) {
      return generator.event(eventNumber(index, events, parallelism));
    }
  }
}
