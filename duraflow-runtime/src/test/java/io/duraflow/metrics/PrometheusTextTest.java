package io.duraflow.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PrometheusTextTest {
    private static final String HEADER = "# HELP duraflow_x_total X\n# TYPE duraflow_x_total counter\n";

    @Test
    void readsFamiliesSamplesAndSpecialValues() {
        Map<String, PrometheusText.Family> parsed = PrometheusText.parse(HEADER
                + "duraflow_x_total{a=\"1\",b=\"two words\"} 3.0\n"
                + "duraflow_x_total{a=\"2\",b=\"\"} 4 1700000000000\n"
                + "# TYPE duraflow_g gauge\n"
                + "duraflow_g +Inf\n");

        assertThat(parsed.get("duraflow_x_total").help()).isEqualTo("X");
        assertThat(parsed.get("duraflow_x_total").samples()).hasSize(2);
        assertThat(parsed.get("duraflow_x_total").sum("a", "2")).isEqualTo(4);
        assertThat(parsed.get("duraflow_x_total").sum("b", "two words")).isEqualTo(3);
        assertThat(parsed.get("duraflow_g").samples().get(0).value()).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "duraflow_y_total 1\n",                  // a sample of another family
        "duraflow_x_total{a=1} 1\n",             // unquoted label value
        "duraflow_x_total{a=\"1\" 1\n",          // label set not closed
        "duraflow_x_total{a=\"1\",a=\"2\"} 1\n", // a label twice
        "duraflow_x_total{9a=\"1\"} 1\n",        // invalid label name
        "duraflow_x_total{a=\"\\t\"} 1\n",       // invalid escape
        "duraflow_x_total one\n",                // value not a number
        "duraflow_x_total 1\nduraflow_x_total 2\n", // a series twice
        "duraflow_x_total  1\n",                 // two spaces
    })
    void rejectsWhatIsNotTheFormat(String samples) {
        assertThatThrownBy(() -> PrometheusText.parse(HEADER + samples))
                .isInstanceOf(PrometheusText.FormatException.class)
                .hasMessageStartingWith("line ");
    }

    @Test
    void rejectsASampleBeforeAnyType() {
        assertThatThrownBy(() -> PrometheusText.parse("duraflow_g 1\n"))
                .isInstanceOf(PrometheusText.FormatException.class)
                .hasMessageContaining("line 1: sample outside the family");
    }

    @Test
    void rejectsAFamilyDeclaredTwice() {
        assertThatThrownBy(() -> PrometheusText.parse(HEADER + HEADER))
                .isInstanceOf(PrometheusText.FormatException.class)
                .hasMessageContaining("family declared twice");
    }
}
