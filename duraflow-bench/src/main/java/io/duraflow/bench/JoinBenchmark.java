package io.duraflow.bench;

import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.examples.OrdersJoin;
import io.duraflow.spill.SpillingHashJoin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/**
 * The join operator alone ({@link SpillingHashJoin}, one task's share) over the rows of the
 * {@code join} example: {@code customers} build rows ⋈ {@code orders} probe rows on custkey,
 * once with a budget the build side fits (the in-memory hash join) and once with a budget a
 * fraction of it (the hybrid hash join partitions to disk). Rows are generated and serialized
 * in the loop, as the exchange would hand them over, the same way in both modes.
 *
 * <p>Prints, per mode, the median of the repeats: wall time, rows/s (build + probe rows),
 * matches, bytes written to partition files, partitions spilled, the deepest level and the
 * partitions joined in chunks; then the spilling/in-memory time ratio. Both modes must find the
 * same matches and the same sum of order values, and leave no file behind.
 *
 * <pre>
 *   ./mvnw -q -o -DskipTests -Pbench -Dbench.main=io.duraflow.bench.JoinBenchmark -pl duraflow-bench -am package
 *   (-Dbench.customers=2000000 -Dbench.orders=10000000 -Dbench.repeats=3 -Dbench.spill-budget-mb=32)
 * </pre>
 */
public final class JoinBenchmark {
    private static final TypeSerializer<OrdersJoin.Customer> CUSTOMER = Types.record(OrdersJoin.Customer.class);
    private static final TypeSerializer<OrdersJoin.Order> ORDER = Types.record(OrdersJoin.Order.class);

    record Run(long millis, long matches, long checksum, long spilledBytes, int spilledPartitions, int deepestLevel,
            int chunkedPartitions) {}

    public static void main(String[] args) throws Exception {
        long customers = Long.getLong("bench.customers", 2_000_000L);
        long orders = Long.getLong("bench.orders", 10_000_000L);
        int repeats = Math.max(1, Integer.getInteger("bench.repeats", 3));
        long spillBudget = Long.getLong("bench.spill-budget-mb", 32L) << 20;
        long inMemoryBudget = Runtime.getRuntime().maxMemory();
        System.out.printf("Join benchmark: %,d customers (build) x %,d orders (probe), one task, heap %,d MiB%n",
                customers, orders, inMemoryBudget >> 20);
        Path spillDir = Files.createTempDirectory("duraflow-join-bench-");
        try {
            Run inMemory = measure("in-memory", customers, orders, inMemoryBudget, spillDir, repeats);
            Run spilling = measure("spilling ", customers, orders, spillBudget, spillDir, repeats);
            check(inMemory.spilledBytes() == 0, "the in-memory run spilled; give the JVM more heap");
            check(spilling.spilledBytes() > 0, "the spilling run did not spill; lower bench.spill-budget-mb");
            check(inMemory.matches() == spilling.matches() && inMemory.checksum() == spilling.checksum(),
                    "the two modes found different matches");
            System.out.printf("ratio spilling/in-memory: %.2f (budget %,d MiB for the spilling run)%n",
                    (double) spilling.millis() / inMemory.millis(), spillBudget >> 20);
        } finally {
            try (Stream<Path> left = Files.list(spillDir)) {
                check(left.findAny().isEmpty(), "partition files were left behind");
            }
            Files.delete(spillDir);
        }
    }

    private static Run measure(String mode, long customers, long orders, long budget, Path spillDir, int repeats)
            throws Exception {
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < repeats; i++) {
            runs.add(runOnce(customers, orders, budget, spillDir));
        }
        List<Run> sorted = new ArrayList<>(runs);
        Collections.sort(sorted, (a, b) -> Long.compare(a.millis(), b.millis()));
        Run median = sorted.get(sorted.size() / 2);
        double rowsPerSecond = (customers + orders) / (median.millis() / 1000.0);
        System.out.printf("%s: %,d ms (median of %d) | %,.0f rows/s | %,d matches | spilled %,d bytes in %d"
                        + " partitions, deepest level %d, %d joined in chunks%n", mode, median.millis(), repeats,
                rowsPerSecond, median.matches(), median.spilledBytes(), median.spilledPartitions(),
                median.deepestLevel(), median.chunkedPartitions());
        return median;
    }

    private static Run runOnce(long customers, long orders, long budget, Path spillDir) throws Exception {
        DataWriter scratch = new DataWriter(256);
        long[] matches = {0};
        long[] checksum = {0};
        SpillingHashJoin.MatchConsumer<OrdersJoin.Customer, OrdersJoin.Order> out = (customer, order) -> {
            matches[0]++;
            checksum[0] += order.totalCents() * (customer.segment().length());
        };
        long start = System.nanoTime();
        try (var join = new SpillingHashJoin<Long, OrdersJoin.Customer, OrdersJoin.Order>(Types.LONG, CUSTOMER, ORDER,
                budget, spillDir)) {
            for (long i = 0; i < customers; i++) {
                OrdersJoin.Customer customer = OrdersJoin.customer(i);
                scratch.reset();
                CUSTOMER.write(customer, scratch);
                join.build(customer.custKey(), customer, scratch.position());
            }
            join.endBuild();
            for (long i = 0; i < orders; i++) {
                OrdersJoin.Order order = OrdersJoin.order(i, customers);
                scratch.reset();
                ORDER.write(order, scratch);
                join.probe(order.custKey(), order, out);
            }
            join.finish(out);
            long millis = (System.nanoTime() - start) / 1_000_000;
            return new Run(millis, matches[0], checksum[0], join.spilledBytes(), join.spilledPartitions(),
                    join.deepestLevel(), join.chunkedPartitions());
        }
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException("benchmark result is wrong: " + message);
        }
    }
}
