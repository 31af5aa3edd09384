package io.duraflow.eventtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class WatermarkCombinerTest {
    /** What the combiner told its downstream, in order: watermarks as numbers, idleness as strings. */
    private final List<Object> out = new ArrayList<>();
    private final WatermarkCombiner combiner = recordingInto(out);

    private static WatermarkCombiner recordingInto(List<Object> out) {
        return new WatermarkCombiner(new WatermarkCombiner.Output() {
            @Override
            public void watermark(long watermark) {
                out.add(watermark);
            }

            @Override
            public void idle(boolean idle) {
                out.add(idle ? "idle" : "active");
            }
        });
    }

    @Test
    void theCombinationIsTheLowestActiveInputAndNeverGoesBack() {
        int a = combiner.addInput();
        int b = combiner.addInput();
        combiner.update(a, 10);
        assertThat(out).as("b has no watermark yet: it holds the combination").isEmpty();
        combiner.update(b, 5);
        combiner.update(b, 20);
        combiner.update(a, 30);
        combiner.update(a, 25); // lower than a's last: ignored
        assertThat(out).containsExactly(5L, 10L, 20L);
        assertThat(combiner.current()).isEqualTo(20);
    }

    @Test
    void anIdleInputHoldsNothingBackAndAnActiveOneAgainCannotMoveTheCombinationBack() {
        int a = combiner.addInput();
        int b = combiner.addInput();
        combiner.update(a, 10);
        combiner.update(b, 3);
        combiner.markIdle(b);
        combiner.update(a, 40);
        combiner.update(b, 7); // active again below the combination: holds it at 10...
        combiner.update(a, 50);
        combiner.update(b, 45); // ...until it passes it
        assertThat(out).containsExactly(3L, 10L, 40L, 45L);
    }

    @Test
    void everyInputIdleMakesTheCombinationIdleAndARecordMakesItActive() {
        int a = combiner.addInput();
        int b = combiner.addInput();
        combiner.update(a, 1);
        combiner.update(b, 1);
        combiner.markIdle(a);
        combiner.markIdle(b);
        assertThat(combiner.isIdle()).isTrue();
        combiner.markActive(b);
        combiner.update(b, 9);
        assertThat(out).containsExactly(1L, "idle", "active", 9L);
    }

    @Test
    void endedInputsHoldNothingBackAndAllEndedIsTheEndOfTime() {
        int a = combiner.addInput();
        int b = combiner.addInput();
        combiner.update(a, 5);
        combiner.update(b, 8);
        combiner.end(a);
        assertThat(combiner.current()).isEqualTo(8);
        combiner.update(a, 100); // an ended input stays ended
        combiner.end(b);
        assertThat(combiner.allEnded()).isTrue();
        assertThat(out).containsExactly(5L, 8L, WatermarkCombiner.END_OF_TIME);
    }

    @Test
    void anIdleInputThatEndsLeavesTheOthersInCharge() {
        int a = combiner.addInput();
        int b = combiner.addInput();
        combiner.markIdle(a);
        combiner.update(b, 4);
        combiner.end(a);
        combiner.update(b, 6);
        assertThat(out).containsExactly(4L, 6L);
        assertThatThrownBy(() -> combiner.update(7, 1)).hasMessage("no input 7 (of 2)");
    }

    @Test
    void anInputAtTheEndOfTimeHasEndedAndCarriesNothingPastIdleInputs() {
        int a = combiner.addInput();
        int b = combiner.addInput();
        combiner.markIdle(a); // e.g. a reader that has not read its split's first record yet
        combiner.update(b, WatermarkCombiner.END_OF_TIME); // a reader without splits ended
        assertThat(combiner.isIdle()).isTrue();
        assertThat(combiner.current()).as("not the end of time while a may still bring records")
                .isEqualTo(WatermarkCombiner.NO_WATERMARK);
        combiner.update(a, 10);
        combiner.update(a, WatermarkCombiner.END_OF_TIME);
        assertThat(combiner.allEnded()).isTrue();
        assertThat(out).containsExactly("idle", "active", 10L, WatermarkCombiner.END_OF_TIME);
    }

    /** One step of a random history: an input, what happens to it, a watermark. */
    record Step(int input, int action, long watermark) {}

    @Provide
    Arbitrary<List<Step>> histories() {
        return Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.integers().between(0, 9),
                Arbitraries.longs().between(-5, 60)).as(Step::new).list().ofMaxSize(80);
    }

    /** The combination after any history equals the one a plain scan over the inputs gives. */
    @Property(tries = 300)
    void theCombinationMatchesAScanOfTheInputs(@ForAll("histories") List<Step> history) {
        List<Object> out = new ArrayList<>();
        WatermarkCombiner combiner = recordingInto(out);
        int inputs = 5;
        combiner.addInputs(inputs);
        long[] marks = new long[inputs];
        java.util.Arrays.fill(marks, WatermarkCombiner.NO_WATERMARK);
        int[] status = new int[inputs]; // 0 active, 1 idle, 2 ended
        long expected = WatermarkCombiner.NO_WATERMARK;
        for (Step step : history) {
            int i = step.input();
            if (step.action() < 6) {
                combiner.update(i, step.watermark());
                if (status[i] != 2) {
                    status[i] = 0;
                    marks[i] = Math.max(marks[i], step.watermark());
                }
            } else if (step.action() < 8) {
                combiner.markIdle(i);
                status[i] = status[i] == 0 ? 1 : status[i];
            } else if (step.action() < 9) {
                combiner.markActive(i);
                status[i] = status[i] == 1 ? 0 : status[i];
            } else {
                combiner.end(i);
                status[i] = 2;
            }
            boolean anyActive = false;
            boolean allEnded = true;
            long min = WatermarkCombiner.END_OF_TIME;
            for (int j = 0; j < inputs; j++) {
                anyActive |= status[j] == 0;
                allEnded &= status[j] == 2;
                if (status[j] == 0) {
                    min = Math.min(min, marks[j]);
                }
            }
            if (anyActive || allEnded) {
                expected = Math.max(expected, anyActive ? min : WatermarkCombiner.END_OF_TIME);
            }
            assertThat(combiner.current()).as("after %s", step).isEqualTo(expected);
            assertThat(combiner.isIdle()).as("after %s", step).isEqualTo(!anyActive && !allEnded);
        }
        List<Long> emitted = out.stream().filter(Long.class::isInstance).map(Long.class::cast).toList();
        assertThat(emitted).as("strictly rising").isSorted().doesNotHaveDuplicates();
    }
}
