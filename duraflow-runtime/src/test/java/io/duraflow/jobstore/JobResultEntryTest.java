package io.duraflow.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobResultEntryTest {
    @Test
    void collectedBytesAreComparedByContentAndCopied() {
        byte[] bytes = {1, 2, 3};
        CollectedData data = new CollectedData("out", 0, 1, bytes);
        CollectedData same = new CollectedData("out", 0, 1, new byte[] {1, 2, 3});

        assertThat(data).isEqualTo(same).hasSameHashCodeAs(same);
        assertThat(data).isNotEqualTo(new CollectedData("out", 0, 1, new byte[] {1, 2, 4}));
        assertThat(data.toString()).isEqualTo("CollectedData[name=out, subtask=0, records=1, data=3 bytes]");

        bytes[0] = 9;
        data.data()[1] = 9;
        assertThat(data.data()).containsExactly(1, 2, 3);
        assertThat(data.sizeBytes()).isEqualTo(3);
    }

    @Test
    void entriesWithEqualCollectedBytesAreEqual() {
        assertThat(TestEntries.everyField("j1")).isEqualTo(TestEntries.everyField("j1"))
                .hasSameHashCodeAs(TestEntries.everyField("j1"))
                .isNotEqualTo(TestEntries.everyField("j2"));
    }

    @Test
    void mapsAndListsAreCopiedAndSorted() {
        Map<String, String> params = new HashMap<>(Map.of("b", "2", "a", "1"));
        List<VertexSummary> vertices = new ArrayList<>(List.of(new VertexSummary(1, "v", 1, 0, 0, 1, List.of(0))));
        JobResultEntry entry = new JobResultEntry("j1", "", "", JobOutcome.FINISHED, 0, 0, "", 0, params, Map.of(),
                vertices, List.of());

        params.put("c", "3");
        vertices.clear();

        assertThat(entry.params()).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));
        assertThat(entry.vertices()).hasSize(1);
        assertThatThrownBy(() -> entry.params().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void invalidEntriesAreRejected() {
        assertThatThrownBy(() -> JobResultEntry.unknown("a/b", "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid job id 'a/b'");
        assertThatThrownBy(() -> JobResultEntry.unknown("j1", null)).isInstanceOf(NullPointerException.class);
        Map<String, Long> nullValue = new HashMap<>();
        nullValue.put("k", null);
        assertThatThrownBy(() -> new JobResultEntry("j1", "", "", JobOutcome.FINISHED, 0, 0, "", 0, Map.of(),
                nullValue, List.of(), List.of())).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("counters value of 'k'");
    }

    @Test
    void unknownEntry() {
        JobResultEntry entry = JobResultEntry.unknown("j1", "lost");

        assertThat(entry.state()).isEqualTo(JobOutcome.UNKNOWN);
        assertThat(entry.failure()).isEqualTo("lost");
        assertThat(entry.collected()).isEmpty();
    }
}
