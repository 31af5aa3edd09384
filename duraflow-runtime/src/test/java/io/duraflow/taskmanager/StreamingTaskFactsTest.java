package io.duraflow.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.duraflow.rpc.proto.HeldTask;
import io.duraflow.rpc.proto.SplitsReceived;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class StreamingTaskFactsTest {

    private static List<ByteString> splits(String... names) {
        return java.util.Arrays.stream(names).map(ByteString::copyFromUtf8).toList();
    }

    /** after_checkpoint_id -> split names, as a held task's report carries them. */
    private static Map<Long, List<String>> reported(StreamingTaskFacts facts) {
        HeldTask.Builder held = HeldTask.newBuilder();
        facts.describe(held);
        Map<Long, List<String>> byCheckpoint = new TreeMap<>();
        for (SplitsReceived received : held.getSplitsReceivedList()) {
            byCheckpoint.put(received.getAfterCheckpointId(),
                    received.getSplitsList().stream().map(ByteString::toStringUtf8).toList());
        }
        return byCheckpoint;
    }

    @Test
    void aSplitCountsAfterEveryTriggerOrderedBeforeItWhicheverArrivedFirst() {
        StreamingTaskFacts facts = new StreamingTaskFacts(0);
        facts.splitsReceived(1, splits("a"));
        // Assigned after the enumerators' snapshot of checkpoint 3 (sequence 2), but here before its trigger.
        facts.splitsReceived(3, splits("b"));
        facts.triggered(3, 2);

        assertThat(reported(facts)).containsExactly(Map.entry(0L, List.of("a")), Map.entry(3L, List.of("b")));
    }

    @Test
    void splitsBeforeTheRestoredCheckpointCountAfterIt() {
        StreamingTaskFacts facts = new StreamingTaskFacts(7);
        facts.splitsReceived(1, splits("a"));

        assertThat(reported(facts)).containsExactly(Map.entry(7L, List.of("a")));
    }

    @Test
    void unorderedSplitsCountAfterTheNewestTriggerSoFar() {
        StreamingTaskFacts facts = new StreamingTaskFacts(0);
        facts.triggered(2, 0);
        facts.splitsReceived(0, splits("a"));
        facts.triggered(3, 5);

        assertThat(reported(facts)).as("the ordered trigger 3 came later but may have been applied first")
                .containsExactly(Map.entry(3L, List.of("a")));
    }

    @Test
    void batchesBeforeTheNewestCompletedCheckpointAreForgotten() {
        StreamingTaskFacts facts = new StreamingTaskFacts(0);
        facts.splitsReceived(1, splits("a"));
        facts.triggered(1, 2);
        facts.splitsReceived(3, splits("b"));
        facts.triggered(2, 4);
        facts.acknowledged(2);
        facts.completed(2);

        HeldTask.Builder held = HeldTask.newBuilder();
        facts.describe(held);
        assertThat(held.getLastAcknowledgedCheckpointId()).isEqualTo(2);
        assertThat(held.getLastCompletedCheckpointId()).isEqualTo(2);
        assertThat(reported(facts)).as("a came before 1, b after 1 but before 2: both in checkpoint 2's state")
                .isEmpty();
        facts.splitsReceived(5, splits("c"));
        assertThat(reported(facts)).containsExactly(Map.entry(2L, List.of("c")));
    }

    @Test
    void idsOnlyGrow() {
        StreamingTaskFacts facts = new StreamingTaskFacts(0);
        facts.acknowledged(5);
        facts.acknowledged(4);
        facts.completed(5);
        facts.completed(3);

        assertThat(facts.lastAcknowledgedId()).isEqualTo(5);
        assertThat(facts.lastCompletedId()).isEqualTo(5);
    }
}
