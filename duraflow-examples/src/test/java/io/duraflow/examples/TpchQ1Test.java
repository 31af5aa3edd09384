package io.duraflow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.NonRetriableException;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class TpchQ1Test {
    @Test
    void sumsPastWhatADoubleHoldsArePrintedExactly() {
        // 2^53 + 1 is the first integer a double cannot hold: through a double the last digit was 2.
        long chargeTimes10000 = (1L << 53) + 1;
        TpchQ1.Q1Row row = new TpchQ1.Q1Row("N", "O", 7, 1_234_567_890_123_456_789L, 9_007_199_254_740_993L,
                chargeTimes10000, 5, 3);

        String line = row.toString();

        assertThat(line).contains("|sum_charge=9007199254.740993|")
                .contains("|sum_base_price=12345678901234567.89|")
                .contains("|sum_disc_price=900719925474.0993|")
                .startsWith("N|O|sum_qty=7|")
                .endsWith("|avg_qty=2.3333|avg_price=4115226300411522.6300|avg_disc=0.0167|count_order=3");
    }

    @Test
    void averagesRoundHalfUpFromTheExactQuotient() {
        // 0.00125 is not exactly representable in binary; the exact quotient rounds up to 0.0013.
        TpchQ1.Q1Row row = new TpchQ1.Q1Row("A", "F", 5, 1, 0, 0, 1, 8);

        assertThat(row.toString()).contains("|avg_price=0.0013|").contains("|avg_disc=0.0013|")
                .contains("|avg_qty=0.6250|");
    }

    @Test
    void theAggregateSumsExactlyAndFailsRatherThanOverflow() {
        TpchQ1.Q1Aggregate aggregate = new TpchQ1.Q1Aggregate();
        TpchQ1.Q1Row acc = aggregate.createAccumulator();
        BigInteger charge = BigInteger.ZERO;
        for (long i = 0; i < 10_000; i++) {
            TpchQ1.LineItem item = TpchQ1.lineItem(i);
            acc = aggregate.add(acc, item);
            charge = charge.add(BigInteger.valueOf(item.extendedPriceCents() * (100 - item.discountPercent())
                    * (100 + item.taxPercent())));
        }
        assertThat(BigInteger.valueOf(acc.sumChargeCentsTimes10000())).isEqualTo(charge);

        TpchQ1.Q1Row huge = new TpchQ1.Q1Row("N", "O", 0, 0, 0, Long.MAX_VALUE - 1, 0, 1);
        TpchQ1.Q1Row more = new TpchQ1.Q1Row("N", "O", 0, 0, 0, 2, 0, 1);
        assertThatThrownBy(() -> aggregate.merge(huge, more)).isInstanceOf(NonRetriableException.class)
                .hasMessageContaining("overflows");
    }
}
