package io.duraflow.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.types.Types;
import io.duraflow.api.windowing.TumblingEventTimeWindows;
import io.duraflow.api.windowing.TumblingProcessingTimeWindows;
import io.duraflow.config.RuntimeMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An operator that works in event time needs timestamps on every input, checked when the plan is built. */
class EventTimePlanRulesTest {
    private static Flow<Long> untimed(JobBuilder job, String name) {
        return job.fromSource(name, new SequenceSource(0, 100, 1));
    }

    private static Flow<Long> timed(JobBuilder job, String name) {
        return job.fromSource(name, new SequenceSource(0, 100, 1),
                WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((n, previous) -> n));
    }

    private static void countPerMinute(Flow<Long> numbers) {
        numbers.map(n -> n * 2, Types.LONG).keyBy(n -> n % 3, Types.LONG)
                .window(TumblingEventTimeWindows.of(Duration.ofMinutes(1))).reduce(Long::sum).name("per minute")
                .collect("out");
    }

    @Test
    void anEventTimeWindowWithoutTimestampsIsRefusedNamingItAndWhatToSet() {
        JobBuilder job = new JobBuilder("untimed");
        countPerMinute(untimed(job, "numbers"));
        assertThatThrownBy(() -> JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operator 'per minute' (TumblingEventTimeWindows(1m)) works in event time, but its input"
                        + " 'Map' has no timestamps: give the source a WatermarkStrategy (fromSource(name, source,"
                        + " strategy)) or call assignTimestampsAndWatermarks before keyBy");
    }

    @Test
    void timestampsFromASourceOrAnAssignerBeforeItAreEnough() {
        JobBuilder fromSource = new JobBuilder("timed");
        countPerMinute(timed(fromSource, "numbers"));
        assertThat(JobGraph.compile(fromSource.plan(), 2, RuntimeMode.STREAMING).vertices()).hasSize(2);

        JobBuilder assigned = new JobBuilder("assigned");
        countPerMinute(untimed(assigned, "numbers").assignTimestampsAndWatermarks(
                WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((n, previous) -> n)));
        assertThat(JobGraph.compile(assigned.plan(), 2, RuntimeMode.STREAMING).vertices()).hasSize(2);
    }

    @Test
    void aUnionWithOneUntimedInputIsRefused() {
        JobBuilder job = new JobBuilder("half");
        countPerMinute(timed(job, "timed").union(untimed(job, "untimed")));
        assertThatThrownBy(() -> JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING))
                .hasMessageContaining("operator 'per minute'").hasMessageContaining("has no timestamps");
    }

    @Test
    void processingTimeWindowsNeedNoTimestamps() {
        JobBuilder job = new JobBuilder("processing");
        untimed(job, "numbers").keyBy(n -> n % 3, Types.LONG)
                .window(TumblingProcessingTimeWindows.of(Duration.ofSeconds(1))).reduce(Long::sum).collect("out");
        assertThat(JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING).vertices()).hasSize(2);
    }
}
