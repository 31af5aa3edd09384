package com.example.quickstart;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.connectors.FileSink;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;

/**
 * Running totals per customer over a stream of orders: each order (customer, amount) updates the
 * customer's count and total, kept in keyed state, and the new (customer, orders, total) goes to
 * files, exactly once through any crash (a checkpoint's files become visible when it completes).
 *
 * <p>Parameters: {@code output} (the directory, required), {@code orders} (how many to generate,
 * default 1,000,000; 0: endless), {@code customers} (default 1,000), {@code rate} (orders per
 * second, default 0: as fast as it goes).
 */
public final class OrderTotals implements DuraflowJob {
    /** An order: (customer, amount in cents). */
    static final TypeSerializer<Tuple2<Long, Long>> ORDER = Types.tuple(Types.LONG, Types.LONG);
    /** A running total: (customer, orders so far, total so far). */
    static final TypeSerializer<Tuple3<Long, Long, Long>> TOTAL = Types.tuple(Types.LONG, Types.LONG, Types.LONG);

    /** The order number {@code i}, the same on every run. */
    public static Tuple2<Long, Long> order(long i, long customers) {
        return Tuple2.of(i * 31 % customers, 100 + i % 997);
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("OrderTotals");
        long orders = params.getLong("orders", 1_000_000, 0, Long.MAX_VALUE / 31);
        long customers = params.getLong("customers", 1_000, 1, Integer.MAX_VALUE);
        long rate = params.getLong("rate", DataGeneratorSource.UNLIMITED, 0, Long.MAX_VALUE);
        String output = params.getRequired("output");

        DataGeneratorSource<Tuple2<Long, Long>> source = DataGeneratorSource
                .of("orders", ORDER, i -> order(i, customers)).withRate(rate);
        if (orders > 0) {
            source = source.withCount(orders);
        }
        job.fromSource("Orders", source).uid("orders")
                .keyBy(Tuple2::f0, Types.LONG)
                .process(new TotalPerCustomer(), TOTAL).name("Total per customer").uid("total-per-customer")
                .sinkTo("Write totals", new FileSink<Tuple3<Long, Long, Long>>(output,
                        total -> total.f0() + "," + total.f1() + "," + total.f2()));
    }

    /** Keeps (orders, total) per customer and emits the new running total for each order. */
    static final class TotalPerCustomer
            extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple3<Long, Long, Long>> {
        private static final ValueStateDescriptor<Tuple2<Long, Long>> SO_FAR =
                new ValueStateDescriptor<>("orders-and-total", Types.tuple(Types.LONG, Types.LONG));
        private transient ValueState<Tuple2<Long, Long>> soFar;

        @Override
        public void open(RuntimeContext context) {
            soFar = context.state().getState(SO_FAR);
        }

        @Override
        public void processElement(Tuple2<Long, Long> order, Context<Long> context,
                Collector<Tuple3<Long, Long, Long>> out) throws Exception {
            Tuple2<Long, Long> before = soFar.value();
            long count = before == null ? 1 : before.f0() + 1;
            long total = (before == null ? 0 : before.f1()) + order.f1();
            soFar.update(Tuple2.of(count, total));
            out.collect(Tuple3.of(order.f0(), count, total));
        }
    }
}
