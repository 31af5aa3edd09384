package io.duraflow.api.eventtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WatermarkStrategyTest {
    private final List<Long> emitted = new ArrayList<>();
    private final WatermarkOutput output = new WatermarkOutput() {
        @Override
        public void emitWatermark(long watermark) {
            emitted.add(watermark);
        }

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
    };

    @Test
    void boundedOutOfOrdernessTrailsTheHighestTimestampByTheBoundAndOne() {
        WatermarkGenerator<String> generator = WatermarkStrategy.<String>forBoundedOutOfOrderness(Duration.ofSeconds(5))
                .createGenerator();
        generator.onPeriodicEmit(output);
        generator.onEvent("a", 10_000, output);
        generator.onEvent("b", 8_000, output);
        generator.onPeriodicEmit(output);
        generator.onEvent("c", 20_000, output);
        generator.onPeriodicEmit(output);
        assertThat(emitted).containsExactly(Long.MIN_VALUE, 4_999L, 14_999L);
    }

    @Test
    void monotonousTimestampsGiveTheHighestMinusOne() {
        WatermarkGenerator<String> generator = WatermarkStrategy.<String>forMonotonousTimestamps().createGenerator();
        generator.onEvent("a", 42, output);
        generator.onPeriodicEmit(output);
        assertThat(emitted).containsExactly(41L);
    }

    @Test
    void eachSplitGetsAGeneratorOfItsOwn() {
        WatermarkStrategy<String> strategy = WatermarkStrategy.forMonotonousTimestamps();
        assertThat(strategy.createGenerator()).isNotSameAs(strategy.createGenerator());
    }

    @Test
    void theAssignerGivesTheTimestampElseTheRecordKeepsItsOwn() {
        WatermarkStrategy<String> plain = WatermarkStrategy.forMonotonousTimestamps();
        WatermarkStrategy<String> assigned = plain.withTimestampAssigner((s, previous) -> s.length());
        assertThat(plain.timestampOf("abc", 7)).isEqualTo(7);
        assertThat(assigned.timestampOf("abc", 7)).isEqualTo(3);
        assertThat(plain.hasTimestampAssigner()).isFalse();
    }

    @Test
    void theDescriptionNamesEverySettingForThePlansFingerprint() {
        WatermarkStrategy<String> strategy = WatermarkStrategy.<String>forBoundedOutOfOrderness(Duration.ofSeconds(2))
                .withTimestampAssigner((s, p) -> 0).withIdleness(Duration.ofMinutes(1))
                .withAlignment("sources", Duration.ofSeconds(20));
        assertThat(strategy.description())
                .isEqualTo("watermarks(bounded(2000ms),assigner,idle=60000ms,align=sources/20000ms/1000ms)");
        assertThat(WatermarkStrategy.forGenerator("punctuated", WatermarkStrategy.<String>noWatermarks()::createGenerator)
                .description()).isEqualTo("watermarks(generator(punctuated))");
    }

    @Test
    void badSettingsAreOneLineErrors() {
        assertThatThrownBy(() -> WatermarkStrategy.forBoundedOutOfOrderness(Duration.ofMillis(-1)))
                .hasMessage("the out-of-orderness bound must be zero or positive, got PT-0.001S");
        assertThatThrownBy(() -> WatermarkStrategy.forMonotonousTimestamps().withIdleness(Duration.ZERO))
                .hasMessage("the idleness timeout must be positive, got PT0S");
        assertThatThrownBy(() -> WatermarkStrategy.forMonotonousTimestamps().withAlignment(" ", Duration.ZERO))
                .hasMessage("a watermark alignment group needs a non-blank name");
        assertThatThrownBy(() -> WatermarkStrategy.forGenerator("", () -> null))
                .hasMessage("a custom watermark generator needs a non-blank name");
    }
}
