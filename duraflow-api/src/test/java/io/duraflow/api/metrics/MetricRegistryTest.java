package io.duraflow.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetricRegistryTest {
    private final List<String> failures = new ArrayList<>();
    private final MetricRegistry registry = new MetricRegistry((gauge, e) -> failures.add(gauge + ": " + e.getMessage()));

    @Test
    void samplesCountersAndGaugesInTheOrderTheyWereRegistered() {
        Counter skipped = registry.counter("records_skipped", "Records skipped");
        double[] lag = {12};
        registry.withLabel("topic", "in").withLabel("partition", "3").gauge("lag_records", "Records behind",
                () -> lag[0]);
        skipped.inc();
        skipped.inc(4);
        lag[0] = 7;

        assertThat(registry.sample()).containsExactly(
                new MetricSample("records_skipped", "Records skipped", MetricSample.Kind.COUNTER, List.of(), List.of(),
                        5),
                new MetricSample("lag_records", "Records behind", MetricSample.Kind.GAUGE,
                        List.of("topic", "partition"), List.of("in", "3"), 7));
    }

    @Test
    void theSameCounterIsReturnedForTheSameNameAndLabels() {
        registry.withLabel("partition", "0").counter("commits", "Commits").inc();
        registry.withLabel("partition", "0").counter("commits", "Commits").inc();
        registry.withLabel("partition", "1").counter("commits", "Commits").inc();

        assertThat(registry.sample()).extracting(MetricSample::value).containsExactly(2.0, 1.0);
    }

    @Test
    void aGaugeWithoutAValueGivesNoSample() {
        registry.gauge("lag_records", "Records behind", () -> Double.NaN);

        assertThat(registry.sample()).isEmpty();
    }

    @Test
    void aFailingGaugeGivesNoSampleAndIsReportedOnce() {
        registry.withLabel("partition", "2").gauge("lag_records", "Records behind", () -> {
            throw new IllegalStateException("consumer closed");
        });
        registry.counter("ok", "Still sampled");

        assertThat(registry.sample()).extracting(MetricSample::name).containsExactly("ok");
        assertThat(registry.sample()).hasSize(1);
        assertThat(failures).containsExactly("lag_records{partition=2}: consumer closed");
    }

    @Test
    void aNameKeepsItsKindHelpAndLabels() {
        registry.counter("commits", "Commits");

        assertThatThrownBy(() -> registry.gauge("commits", "Commits", () -> 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("registered already as a counter");
        assertThatThrownBy(() -> registry.withLabel("partition", "0").counter("commits", "Commits"))
                .hasMessageContaining("with labels []");
        assertThatThrownBy(() -> registry.counter("commits", "Other help")).hasMessageContaining("help 'Commits'");
    }

    @Test
    void aGaugeRegisteredAgainWithTheSameLabelsReplacesTheFirst() {
        registry.withLabel("partition", "0").gauge("offset", "Position", () -> 1);
        registry.withLabel("partition", "1").gauge("offset", "Position", () -> 5);

        registry.withLabel("partition", "0").gauge("offset", "Position", () -> 2);

        assertThat(registry.sample()).extracting(MetricSample::value).containsExactly(2.0, 5.0);
    }

    @Test
    void namesAndLabelsAreChecked() {
        assertThatThrownBy(() -> registry.counter("Records", "x")).hasMessageContaining("'Records' is not valid");
        assertThatThrownBy(() -> registry.counter("records_total", "x")).hasMessageContaining("ends with _total");
        assertThatThrownBy(() -> registry.gauge("build_info", "x", () -> 1)).hasMessageContaining("ends with _info");
        assertThatThrownBy(() -> registry.withLabel("subtask", "1")).hasMessageContaining("is taken");
        assertThatThrownBy(() -> registry.withLabel("topic", "a").withLabel("topic", "b"))
                .hasMessageContaining("in this group already");
        assertThatThrownBy(() -> registry.withLabel("my-label", "1")).hasMessageContaining("not valid");
    }

    @Test
    void countersOnlyGrow() {
        Counter counter = registry.counter("commits", "Commits");

        assertThatThrownBy(() -> counter.inc(-1)).hasMessageContaining("only grows");
    }

    @Test
    void theDiscardingGroupChecksNamesButKeepsNothing() {
        MetricGroup discarding = MetricGroup.discarding();
        discarding.counter("commits", "Commits").inc();
        discarding.withLabel("partition", "0").gauge("lag_records", "Records behind", () -> {
            throw new AssertionError("never called");
        });

        assertThatThrownBy(() -> discarding.counter("Bad", "x")).isInstanceOf(IllegalArgumentException.class);
    }
}
