package io.duraflow.api.windowing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class WindowAssignersTest {
    @Test
    void tumblingWindowsStartAtMultiplesOfTheSizeShiftedByTheOffset() {
        assertThat(TumblingEventTimeWindows.of(Duration.ofMillis(10)).assignWindows("x", 25))
                .containsExactly(new TimeWindow(20, 30));
        assertThat(TumblingEventTimeWindows.of(Duration.ofMillis(10)).assignWindows("x", -1))
                .containsExactly(new TimeWindow(-10, 0));
        assertThat(TumblingEventTimeWindows.of(Duration.ofMillis(10), Duration.ofMillis(3)).assignWindows("x", 25))
                .containsExactly(new TimeWindow(23, 33));
        assertThat(TumblingEventTimeWindows.of(Duration.ofHours(1)).description())
                .isEqualTo("TumblingEventTimeWindows(1h)");
        assertThat(TumblingProcessingTimeWindows.of(Duration.ofSeconds(5)).isEventTime()).isFalse();
    }

    @Test
    void slidingWindowsGiveARecordToEverySlideItsSizeCovers() {
        assertThat(SlidingEventTimeWindows.of(Duration.ofMillis(20), Duration.ofMillis(5)).assignWindows("x", 12))
                .containsExactly(new TimeWindow(10, 30), new TimeWindow(5, 25), new TimeWindow(0, 20),
                        new TimeWindow(-5, 15));
        assertThat(SlidingEventTimeWindows.of(Duration.ofMillis(10), Duration.ofMillis(4)).assignWindows("x", 8))
                .containsExactly(new TimeWindow(8, 18), new TimeWindow(4, 14), new TimeWindow(0, 10));
        assertThat(SlidingEventTimeWindows.of(Duration.ofSeconds(10), Duration.ofSeconds(2)).description())
                .isEqualTo("SlidingEventTimeWindows(10s, 2s)");
    }

    @Property
    void everyWindowOfASlidingAssignerHoldsTheTimestamp(@ForAll @LongRange(min = -1_000_000, max = 1_000_000) long timestamp,
            @ForAll @IntRange(min = 1, max = 50) int slide, @ForAll @IntRange(min = 1, max = 8) int slides) {
        long size = (long) slide * slides;
        var windows = SlidingEventTimeWindows.of(Duration.ofMillis(size), Duration.ofMillis(slide))
                .assignWindows("x", timestamp);
        assertThat(windows).hasSize(slides).allSatisfy(window -> {
            assertThat(window.start()).isLessThanOrEqualTo(timestamp);
            assertThat(window.maxTimestamp()).isGreaterThanOrEqualTo(timestamp);
            assertThat(Math.floorMod(window.start(), slide)).isZero();
        });
    }

    @Test
    void sessionWindowsMergeWhenTheyOverlapOrTouch() {
        EventTimeSessionWindows<String> sessions = EventTimeSessionWindows.withGap(Duration.ofMillis(10));
        assertThat(sessions.assignWindows("x", 5)).containsExactly(new TimeWindow(5, 15));
        assertThat(sessions.mergeable(new TimeWindow(5, 15), new TimeWindow(15, 25))).isTrue();
        assertThat(sessions.mergeable(new TimeWindow(5, 15), new TimeWindow(16, 26))).isFalse();
        assertThat(sessions.merge(new TimeWindow(5, 15), new TimeWindow(12, 30))).isEqualTo(new TimeWindow(5, 30));
        EventTimeSessionWindows<String> dynamic = EventTimeSessionWindows.withDynamicGap(String::length);
        assertThat(dynamic.assignWindows("abc", 100)).containsExactly(new TimeWindow(100, 103));
        assertThatThrownBy(() -> dynamic.assignWindows("", 100)).hasMessageContaining("gap must be positive");
    }

    @Test
    void badSizesAreRefusedWithTheRule() {
        assertThatThrownBy(() -> TumblingEventTimeWindows.of(Duration.ZERO)).hasMessageContaining("size must be positive");
        assertThatThrownBy(() -> TumblingEventTimeWindows.of(Duration.ofMillis(10), Duration.ofMillis(10)))
                .hasMessageContaining("offset");
        assertThatThrownBy(() -> SlidingEventTimeWindows.of(Duration.ofMillis(10), Duration.ofMillis(-1)))
                .hasMessageContaining("slide must be positive");
        assertThatThrownBy(() -> EventTimeSessionWindows.withGap(Duration.ofMillis(-5)))
                .hasMessageContaining("session gap must be positive");
        assertThatThrownBy(() -> CountTrigger.of(0)).hasMessageContaining("at least 1");
    }

    @Test
    void timeWindowsSerializeAndSortByStart() {
        var out = new io.duraflow.api.types.DataWriter();
        TimeWindow.SERIALIZER.write(new TimeWindow(-5, 7), out);
        assertThat(TimeWindow.SERIALIZER.read(new io.duraflow.api.types.DataReader(out.toByteArray())))
                .isEqualTo(new TimeWindow(-5, 7));
        assertThatThrownBy(() -> new TimeWindow(5, 5)).hasMessageContaining("end after it starts");
    }
}
