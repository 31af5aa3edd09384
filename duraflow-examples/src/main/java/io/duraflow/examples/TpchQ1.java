package io.duraflow.examples;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.GeneratedSource;
import io.duraflow.api.functions.AggregateFunction;
import io.duraflow.api.NonRetriableException;
import io.duraflow.api.types.Types;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * TPC-H query 1 (pricing summary report) over generated {@code lineitem} rows: rows shipped up
 * to 1998-09-02, grouped by return flag and line status, with sums, averages and counts.
 *
 * <p>Parameters: {@code rows} (default 1,000,000), {@code splits} (default 8).
 */
public final class TpchQ1 implements DuraflowJob {
    public static final String RESULT = "q1";
    /** 1998-12-01 minus 90 days, as days since 1970-01-01. */
    public static final int SHIP_DATE_LIMIT = 10_470;

    /** One generated lineitem row (the columns Q1 reads). Prices in cents, rates in percent. */
    public record LineItem(String returnFlag, String lineStatus, long quantity, long extendedPriceCents,
            long discountPercent, long taxPercent, int shipDate) {}

    /** Accumulator and result: the Q1 sums for one (return flag, line status) group. */
    public record Q1Row(String returnFlag, String lineStatus, long sumQuantity, long sumBasePriceCents,
            long sumDiscPriceCentsTimes100, long sumChargeCentsTimes10000, long sumDiscountPercent, long count) {
        /**
         * The report line. Sums are printed exactly from their scaled integers and averages are
         * rounded half up from exact quotients: a double holds only about 16 significant digits,
         * which {@code sum_charge} exceeds at 30 M rows.
         */
        @Override
        public String toString() {
            return returnFlag + "|" + lineStatus + "|sum_qty=" + sumQuantity
                    + "|sum_base_price=" + BigDecimal.valueOf(sumBasePriceCents, 2).toPlainString()
                    + "|sum_disc_price=" + BigDecimal.valueOf(sumDiscPriceCentsTimes100, 4).toPlainString()
                    + "|sum_charge=" + BigDecimal.valueOf(sumChargeCentsTimes10000, 6).toPlainString()
                    + "|avg_qty=" + average(sumQuantity, 0) + "|avg_price=" + average(sumBasePriceCents, 2)
                    + "|avg_disc=" + average(sumDiscountPercent, 2) + "|count_order=" + count;
        }

        /** {@code unscaled / 10^scale / count} with 4 decimals, rounded half up. */
        private String average(long unscaled, int scale) {
            if (count == 0) {
                return "NaN";
            }
            return BigDecimal.valueOf(unscaled, scale).divide(BigDecimal.valueOf(count), 4, RoundingMode.HALF_UP)
                    .toPlainString();
        }
    }

    /** Row i of the generated table; deterministic, so tests can recompute the answer. */
    public static LineItem lineItem(long i) {
        long h = mix(i);
        long quantity = 1 + Math.floorMod(h, 50);
        long partPriceCents = 90_000 + Math.floorMod(h >>> 8, 110_000);
        long discount = Math.floorMod(h >>> 20, 11);
        long tax = Math.floorMod(h >>> 28, 9);
        int shipDate = 8_036 + (int) Math.floorMod(h >>> 36, 2_526);
        String returnFlag;
        if (shipDate > 9_299) {
            returnFlag = "N";
        } else {
            returnFlag = ((h >>> 50) & 1) == 0 ? "R" : "A";
        }
        String lineStatus = shipDate > 9_298 ? "O" : "F";
        return new LineItem(returnFlag, lineStatus, quantity, quantity * partPriceCents / 10, discount, tax, shipDate);
    }

    private static long mix(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public String description() {
        return "TPC-H Q1 pricing summary over generated lineitem rows";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("TPC-H Q1");
        long rows = params.getLong("rows", 1_000_000L, 0, Long.MAX_VALUE);
        int splits = params.getInt("splits", 8, 1, 1_000_000);
        job.fromSource("lineitem", GeneratedSource.of("lineitem", 0, rows, splits, Types.record(LineItem.class),
                        TpchQ1::lineItem))
                .filter(row -> row.shipDate() <= SHIP_DATE_LIMIT).name("shipdate <= 1998-09-02")
                .keyBy(row -> row.returnFlag() + "|" + row.lineStatus(), Types.STRING)
                .aggregate(new Q1Aggregate(), Types.record(Q1Row.class), Types.record(Q1Row.class)).name("Q1 groups")
                .collect(RESULT);
    }

    /** Sums in exact integer arithmetic, so the result does not depend on the order of merges. */
    static final class Q1Aggregate implements AggregateFunction<LineItem, Q1Row, Q1Row> {
        @Override
        public Q1Row createAccumulator() {
            return new Q1Row("", "", 0, 0, 0, 0, 0, 0);
        }

        @Override
        public Q1Row add(Q1Row acc, LineItem row) {
            long discPrice = row.extendedPriceCents() * (100 - row.discountPercent());
            long charge = discPrice * (100 + row.taxPercent());
            return new Q1Row(row.returnFlag(), row.lineStatus(), sum(acc.sumQuantity(), row.quantity()),
                    sum(acc.sumBasePriceCents(), row.extendedPriceCents()),
                    sum(acc.sumDiscPriceCentsTimes100(), discPrice), sum(acc.sumChargeCentsTimes10000(), charge),
                    sum(acc.sumDiscountPercent(), row.discountPercent()), acc.count() + 1);
        }

        @Override
        public Q1Row merge(Q1Row a, Q1Row b) {
            return new Q1Row(a.returnFlag().isEmpty() ? b.returnFlag() : a.returnFlag(),
                    a.lineStatus().isEmpty() ? b.lineStatus() : a.lineStatus(), sum(a.sumQuantity(), b.sumQuantity()),
                    sum(a.sumBasePriceCents(), b.sumBasePriceCents()),
                    sum(a.sumDiscPriceCentsTimes100(), b.sumDiscPriceCentsTimes100()),
                    sum(a.sumChargeCentsTimes10000(), b.sumChargeCentsTimes10000()),
                    sum(a.sumDiscountPercent(), b.sumDiscountPercent()), a.count() + b.count());
        }

        /**
         * A wrong total must never be printed: a sum past 2^63 (sum_charge, about 850 M rows in
         * one group) fails the job, and at once, since running it again overflows again.
         */
        static long sum(long a, long b) {
            try {
                return Math.addExact(a, b);
            } catch (ArithmeticException e) {
                throw new NonRetriableException("a TPC-H Q1 sum overflows 64 bits; run fewer rows", e);
            }
        }

        @Override
        public Q1Row getResult(Q1Row acc) {
            return acc;
        }
    }
}
