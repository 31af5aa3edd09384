package io.duraflow.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FamiliesTest {
    @Test
    void familiesAreWrittenWithTheirTypesUnitsAndLabels() {
        Families families = new Families();
        families.gauge("duraflow_test_queue_bytes", "Bytes queued", Unit.BYTES, "job_id").set(12, "j1").set(3, "j2");
        families.counter("duraflow_test_records", "Records read", null, "job_id", "vertex").set(7, "j1", "Source");
        families.histogram("duraflow_test_duration_seconds", "Durations", Unit.SECONDS, "job_id")
                .set(new double[] {0.5, 1, Double.POSITIVE_INFINITY}, new long[] {2, 1, 1}, 4.25, "j1");

        Map<String, PrometheusText.Family> parsed = TextFormat.roundTrip(families.build());

        assertThat(parsed).containsOnlyKeys("duraflow_test_queue_bytes", "duraflow_test_records_total",
                "duraflow_test_duration_seconds");
        PrometheusText.Family gauge = parsed.get("duraflow_test_queue_bytes");
        assertThat(gauge.type()).isEqualTo("gauge");
        assertThat(gauge.help()).isEqualTo("Bytes queued");
        assertThat(gauge.sum("job_id", "j1")).isEqualTo(12);
        assertThat(gauge.sum()).isEqualTo(15);
        PrometheusText.Family counter = parsed.get("duraflow_test_records_total");
        assertThat(counter.type()).isEqualTo("counter");
        assertThat(counter.samples()).singleElement().satisfies(sample -> {
            assertThat(sample.name()).isEqualTo("duraflow_test_records_total");
            assertThat(sample.labels()).containsExactly(Map.entry("job_id", "j1"), Map.entry("vertex", "Source"));
            assertThat(sample.value()).isEqualTo(7);
        });
        PrometheusText.Family histogram = parsed.get("duraflow_test_duration_seconds");
        assertThat(histogram.type()).isEqualTo("histogram");
        assertThat(histogram.matching("le", "0.5")).singleElement()
                .satisfies(s -> assertThat(s.value()).isEqualTo(2));
        assertThat(histogram.matching("le", "+Inf")).singleElement()
                .satisfies(s -> assertThat(s.value()).as("cumulative").isEqualTo(4));
        assertThat(histogram.samples().stream().filter(s -> s.name().endsWith("_sum")).toList()).singleElement()
                .satisfies(s -> assertThat(s.value()).isEqualTo(4.25));
    }

    @Test
    void aFamilyWithoutSamplesIsLeftOut() {
        Families families = new Families();
        families.gauge("duraflow_test_empty", "Nothing", null, "job_id");
        families.gauge("duraflow_test_one", "One", null).set(1);

        assertThat(TextFormat.roundTrip(families.build())).containsOnlyKeys("duraflow_test_one");
    }

    @Test
    void labelValuesAreEscaped() {
        Families families = new Families();
        families.gauge("duraflow_test_named", "Named", null, "job_name").set(1, "a \"quoted\" \\ name\nline two");

        PrometheusText.Family family = TextFormat.roundTrip(families.build()).get("duraflow_test_named");

        assertThat(family.samples().get(0).labels()).containsEntry("job_name", "a \"quoted\" \\ name\nline two");
    }

    @Test
    void mistakesAreRejected() {
        Families families = new Families();
        families.gauge("duraflow_test_a", "A", null, "job_id");

        assertThatThrownBy(() -> families.gauge("duraflow_test_a", "A again", null))
                .hasMessageContaining("duraflow_test_a declared twice");
        assertThatThrownBy(() -> new Families().gauge("duraflow_test_b", "B", null, "job_id", "vertex").set(1, "j1"))
                .hasMessageContaining("duraflow_test_b has labels " + List.of("job_id", "vertex") + ", got 1 values");
    }
}
