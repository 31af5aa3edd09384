package io.duraflow.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class JobParametersTest {
    @Test
    void typedGettersParseAndValidate() {
        JobParameters params = new JobParameters(Map.of("n", "1_000", "ratio", "0.5", "flag", "yes"));
        assertThat(params.getLong("n", 0)).isEqualTo(1000);
        assertThat(params.getDouble("ratio", 0)).isEqualTo(0.5);
        assertThat(params.getBoolean("flag", false)).isTrue();
        assertThat(params.getLong("missing", 7)).isEqualTo(7);
        params.checkAllUsed("Job");
    }

    @Test
    void badValuesSayWhatIsExpected() {
        JobParameters params = new JobParameters(Map.of("n", "abc", "p", "0"));
        assertThatThrownBy(() -> params.getLong("n", 1)).isInstanceOf(InvalidJobParametersException.class)
                .hasMessage("job parameter 'n' must be a whole number, got 'abc'");
        assertThatThrownBy(() -> params.getInt("p", 1, 1, 10)).hasMessage("job parameter 'p' must be between 1 and 10, got 0");
        assertThatThrownBy(() -> params.getRequired("input")).hasMessageContaining("--param input=");
    }

    @Test
    void unknownParametersAreReported() {
        JobParameters params = new JobParameters(Map.of("wrods", "5"));
        params.getLong("words", 1);
        assertThatThrownBy(() -> params.checkAllUsed("WordCount"))
                .hasMessage("unknown parameter wrods for job WordCount; it accepts: words");
    }
}
