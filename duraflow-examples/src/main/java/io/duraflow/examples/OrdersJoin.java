package io.duraflow.examples;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.GeneratedSource;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;

/**
 * Joins generated customers with their orders and sums order value per market segment:
 * {@code customers JOIN orders ON custkey GROUP BY segment}.
 *
 * <p>Parameters: {@code customers} (default 10,000), {@code orders} (default 200,000).
 */
public final class OrdersJoin implements DuraflowJob {
    public static final String RESULT = "revenue-by-segment";
    static final String[] SEGMENTS = {"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"};

    public record Customer(long custKey, String segment) {}

    public record Order(long orderKey, long custKey, long totalCents) {}

    public static Customer customer(long i) {
        return new Customer(i, SEGMENTS[(int) Math.floorMod(i * 31 + 7, SEGMENTS.length)]);
    }

    /** Order i; its customer may not exist (keys up to 10% beyond the customer count). */
    public static Order order(long i, long customers) {
        long custKey = Math.floorMod(i * 2_654_435_761L, customers + customers / 10 + 1);
        return new Order(i, custKey, 100 + Math.floorMod(i * 7_919L, 100_000L));
    }

    @Override
    public String description() {
        return "joins customers and orders, revenue per market segment";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("OrdersJoin");
        long customers = params.getLong("customers", 10_000L, 1, Integer.MAX_VALUE);
        long orders = params.getLong("orders", 200_000L, 0, Long.MAX_VALUE);
        var customerKeys = job.fromSource("customers", GeneratedSource.of("customers", 0, customers, 4,
                        Types.record(Customer.class), OrdersJoin::customer))
                .keyBy(Customer::custKey, Types.LONG);
        var orderKeys = job.fromSource("orders", GeneratedSource.of("orders(customers=" + customers + ")", 0, orders,
                        8, Types.record(Order.class), i -> order(i, customers)))
                .keyBy(Order::custKey, Types.LONG);
        customerKeys.join(orderKeys, (c, o) -> Tuple2.of(c.segment(), o.totalCents()),
                        Types.tuple(Types.STRING, Types.LONG)).name("Join on custkey")
                .keyBy(Tuple2::f0, Types.STRING)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).name("Revenue per segment")
                .collect(RESULT);
    }
}
