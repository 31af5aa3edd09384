package io.duraflow.taskmanager.task;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every operator that emits into a downstream passes watermarks on, after what it emitted before them. */
class WatermarkForwardingTest {
    private final List<String> seen = new ArrayList<>();
    private final Downstream sink = new Downstream() {
        @Override
        public void push(Object record) {
            seen.add(String.valueOf(record));
        }

        @Override
        public void processWatermark(long watermark) {
            seen.add("wm " + watermark);
        }
    };

    private void feed(Downstream operator) throws Exception {
        operator.push(1L);
        operator.processWatermark(10);
        operator.push(2L);
        operator.processWatermark(20);
    }

    @Test
    void mapFilterAndFlatMapForwardWatermarks() throws Exception {
        feed(ChainedOperators.map(value -> (Long) value * 100, sink));
        feed(ChainedOperators.filter(value -> (Long) value > 1, sink));
        feed(ChainedOperators.flatMap((value, out) -> {
            out.collect(value);
            out.collect(value);
        }, sink));

        assertThat(seen).containsExactly("100", "wm 10", "200", "wm 20", "wm 10", "2", "wm 20",
                "1", "1", "wm 10", "2", "2", "wm 20");
    }

    @Test
    void aFanOutForwardsToEveryTargetAndAPassThroughHeadForwards() throws Exception {
        Downstream fanOut = FanOut.of(List.of(sink, sink));
        fanOut.processWatermark(5);
        HeadOperator.passThrough(sink).processWatermark(7);

        assertThat(seen).containsExactly("wm 5", "wm 5", "wm 7");
    }
}
