package io.duraflow.examples;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.GeneratedSource;
import io.duraflow.api.functions.AggregateFunction;
import io.duraflow.api.types.Types;

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
        public double avgQuantity() {
            return (double) sumQuantity / count;
        }

        public double avgPrice() {
            return sumBasePriceCents / 100.0 / count;
        }

        public double avgDiscount() {
            return sumDiscountPercent / 100.0 / count;
        }

        @Override
        public String toString() {
            return String.format("%s|%s|sum_qty=%d|sum_base_price=%.2f|sum_disc_price=%.4f|sum_charge=%.6f"
                            + "|avg_qty=%.4f|avg_price=%.4f|avg_disc=%.4f|count_order=%d", returnFlag, lineStatus,
                    sumQuantity, sumBasePriceCents / 100.0, sumDiscPriceCentsTimes100 / 10_000.0,
                    sumChargeCentsTimes10000 / 1_000_000.0, avgQuantity(), avgPrice(), avgDiscount(), count);
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
            return new Q1Row(row.returnFlag(), row.lineStatus(), acc.sumQuantity() + row.quantity(),
                    acc.sumBasePriceCents() + row.extendedPriceCents(), acc.sumDiscPriceCentsTimes100() + discPrice,
                    acc.sumChargeCentsTimes10000() + charge, acc.sumDiscountPercent() + row.discountPercent(),
                    acc.count() + 1);
        }

        @Override
        public Q1Row merge(Q1Row a, Q1Row b) {
            return new Q1Row(a.returnFlag().isEmpty() ? b.returnFlag() : a.returnFlag(),
                    a.lineStatus().isEmpty() ? b.lineStatus() : a.lineStatus(), a.sumQuantity() + b.sumQuantity(),
                    a.sumBasePriceCents() + b.sumBasePriceCents(),
                    a.sumDiscPriceCentsTimes100() + b.sumDiscPriceCentsTimes100(),
                    a.sumChargeCentsTimes10000() + b.sumChargeCentsTimes10000(),
                    a.sumDiscountPercent() + b.sumDiscountPercent(), a.count() + b.count());
        }

        @Override
        public Q1Row getResult(Q1Row acc) {
            return acc;
        }
    }
}
