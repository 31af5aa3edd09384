package io.duraflow.test;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.connectors.FileSink;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedCoProcessFunction;
import io.duraflow.api.functions.KeyedProcessFunction.Context;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * Joins generated persons with the auctions they sell, by person id, in a keyed co-process
 * function with state on both sides: a person waits in a value state for auctions to come, an
 * auction waits in a list state for its seller. Each auction is emitted once with its seller, as
 * {@code person,name,auction}, whichever of the two came first.
 *
 * <p>Person {@code i} is {@code (i, "p" + i)}; auction {@code j} is {@code (j, seller(j))}. The
 * auctions come ten times as fast as the persons, so many wait for their seller.
 *
 * <p>Parameters: {@code persons}, {@code auctions}, {@code rate} (auctions per second over all
 * readers, the persons at a tenth of it; 0: unlimited), {@code output} (a directory for the
 * exactly-once {@link FileSink}; without it the lines are collected as {@value #RESULT}).
 */
public final class PersonAuctionJoin implements DuraflowJob {
    public static final String RESULT = "sales";
    private static final TypeSerializer<Tuple2<Long, String>> PERSON = Types.tuple(Types.LONG, Types.STRING);
    private static final TypeSerializer<Tuple2<Long, Long>> AUCTION = Types.tuple(Types.LONG, Types.LONG);
    private static final TypeSerializer<Tuple3<Long, String, Long>> SALE =
            Types.tuple(Types.LONG, Types.STRING, Types.LONG);

    /** The seller of auction {@code j}: spread over all persons, each selling about as many. */
    public static long seller(long auction, long persons) {
        return auction * 7_919 % persons;
    }

    /** The lines a correct run emits, computed directly, sorted. */
    public static List<String> expectedLines(long persons, long auctions) {
        List<String> lines = new ArrayList<>();
        for (long j = 0; j < auctions; j++) {
            long seller = seller(j, persons);
            lines.add(seller + ",p" + seller + "," + j);
        }
        return lines.stream().sorted().toList();
    }

    public static String formatLine(Tuple3<Long, String, Long> sale) {
        return sale.f0() + "," + sale.f1() + "," + sale.f2();
    }

    @Override
    public String description() {
        return "joins persons with the auctions they sell in a keyed co-process function";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        long persons = params.getLong("persons", 1_000, 1, Integer.MAX_VALUE);
        long auctions = params.getLong("auctions", 10_000, 0, Long.MAX_VALUE);
        long rate = params.getLong("rate", DataGeneratorSource.UNLIMITED, 0, Long.MAX_VALUE);
        job.name("PersonAuctionJoin");
        var personSource = DataGeneratorSource.of("persons", PERSON, i -> Tuple2.of(i, "p" + i))
                .withCount(persons).withSplits(2).withRate(rate == 0 ? 0 : Math.max(1, rate / 10));
        var auctionSource = DataGeneratorSource.of("auctions(persons=" + persons + ")", AUCTION,
                j -> Tuple2.of(j, seller(j, persons))).withCount(auctions).withSplits(2).withRate(rate);
        Flow<Tuple3<Long, String, Long>> sales = job.fromSource("Persons", personSource).uid("persons")
                .keyBy(Tuple2::f0, Types.LONG)
                .connect(job.fromSource("Auctions", auctionSource).uid("auctions").keyBy(Tuple2::f1, Types.LONG))
                .process(new SellerOfEachAuction(), SALE).name("Join sellers").uid("join-sellers");
        if (params.has("output")) {
            sales.sinkTo("Write sales", new FileSink<>(params.getRequired("output"), PersonAuctionJoin::formatLine));
        } else {
            sales.collect(RESULT);
        }
    }

    /** Per person id: the person once seen, and the auctions that came before it. */
    static final class SellerOfEachAuction extends KeyedCoProcessFunction<Long, Tuple2<Long, String>,
            Tuple2<Long, Long>, Tuple3<Long, String, Long>> {
        private transient ValueState<String> name;
        private transient ListState<Long> waiting;

        @Override
        public void open(RuntimeContext context) {
            name = context.state().getState(new ValueStateDescriptor<>("name", Types.STRING));
            waiting = context.state().getListState(new ListStateDescriptor<>("waiting-auctions", Types.LONG));
        }

        @Override
        public void processElement1(Tuple2<Long, String> person, Context<Long> context,
                Collector<Tuple3<Long, String, Long>> out) {
            if (name.value() != null) {
                throw new IllegalStateException("person " + person + " came twice");
            }
            name.update(person.f1());
            for (Long auction : waiting.get()) {
                out.collect(Tuple3.of(person.f0(), person.f1(), auction));
            }
            waiting.clear();
        }

        @Override
        public void processElement2(Tuple2<Long, Long> auction, Context<Long> context,
                Collector<Tuple3<Long, String, Long>> out) {
            String seller = name.value();
            if (seller == null) {
                waiting.add(auction.f0());
            } else {
                out.collect(Tuple3.of(auction.f1(), seller, auction.f0()));
            }
        }
    }
}
