package io.duraflow.jobmanager.jobmaster.checkpointing;

import io.duraflow.jobmanager.jobmaster.RecordingSequenceSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.types.Types;
import io.duraflow.checkpoint.CheckpointKind;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.OperatorCheckpointState;
import io.duraflow.config.RuntimeMode;
import io.duraflow.fs.FsPath;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link CheckpointRestore}'s rules, for a savepoint restored into a job with another parallelism or other operators. */
class CheckpointRestoreTest {
    private static final int MAX = 12;

    /** source (uid "numbers") -> keyed reduce (uid "sums") -> collect, the keyed vertex at {@code parallelism}. */
    private static JobGraph job(int parallelism, String keyedUid) {
        JobBuilder job = new JobBuilder("sums");
        job.fromSource("numbers", new RecordingSequenceSource(0, 100, 2)).parallelism(2).uid("numbers")
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).uid(keyedUid).parallelism(parallelism)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    /** A savepoint of the keyed operator "sums" at {@code parallelism}: one handle per subtask over its key groups. */
    private static CompletedCheckpoint savepoint(int parallelism, int maxParallelism, String... otherUids) {
        Map<Integer, OperatorSubtaskState> subtasks = new HashMap<>();
        for (int i = 0; i < parallelism; i++) {
            KeyGroupRange range = KeyGroupRange.ofOperatorIndex(maxParallelism, parallelism, i);
            subtasks.put(i, new OperatorSubtaskState(List.of(new KeyGroupsStateHandle(range, new long[range.size()],
                    new InlineStateHandle(new byte[] {(byte) i}))), List.of()));
        }
        Map<String, OperatorCheckpointState> operators = new HashMap<>();
        operators.put("sums", new OperatorCheckpointState("sums", parallelism, null, subtasks));
        for (String uid : otherUids) {
            operators.put(uid, new OperatorCheckpointState(uid, 1, new byte[] {1}, Map.of()));
        }
        return new CompletedCheckpoint("old", 7, 1, 2, maxParallelism, CheckpointKind.SAVEPOINT, operators,
                FsPath.parse("/sp/savepoint-old-7/_metadata"));
    }

    private static int keyedVertex(JobGraph graph) {
        for (JobVertex vertex : graph.vertices()) {
            if (vertex.nodes().stream().anyMatch(node -> graph.uid(node).equals("sums"))) {
                return vertex.id();
            }
        }
        throw new AssertionError("no keyed vertex");
    }

    /** Every key group is restored by exactly its new owner. */
    private static void assertEveryKeyGroupOnceAtItsOwner(CheckpointRestore restore, JobGraph graph) {
        int vertex = keyedVertex(graph);
        int parallelism = graph.vertex(vertex).parallelism();
        List<Integer> restored = new ArrayList<>();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            KeyGroupRange owned = KeyGroupRange.ofOperatorIndex(MAX, parallelism, subtask);
            for (KeyedStateHandle handle : restore.snapshot(vertex, subtask).operators().get("sums").keyedState()) {
                KeyGroupRange range = handle.keyGroupRange();
                for (int group = range.start(); group <= range.end(); group++) {
                    assertThat(owned.contains(group)).as("key group %d at subtask %d", group, subtask).isTrue();
                    restored.add(group);
                }
            }
        }
        assertThat(restored).containsExactlyInAnyOrderElementsOf(
                java.util.stream.IntStream.range(0, MAX).boxed().toList());
    }

    @Test
    void rescalingFrom2To3And3To1RestoresEveryKeyGroupOnceAtItsNewOwner() {
        JobGraph three = job(3, "sums");
        assertEveryKeyGroupOnceAtItsOwner(CheckpointRestore.of(savepoint(2, MAX), three, MAX, false), three);
        JobGraph one = job(1, "sums");
        assertEveryKeyGroupOnceAtItsOwner(CheckpointRestore.of(savepoint(3, MAX), one, MAX, false), one);
    }

    @Test
    void stateOfOperatorsTheJobNoLongerHasIsAnErrorNamingEveryUidUnlessAllowed() {
        JobGraph renamed = job(2, "totals");
        CompletedCheckpoint savepoint = savepoint(2, MAX, "old-source");

        assertThatThrownBy(() -> CheckpointRestore.check(savepoint, renamed, MAX, false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("savepoint 7 of job old at /sp/savepoint-old-7/_metadata holds state of operators"
                        + " 'old-source', 'sums', which job 'sums' no longer has; give those operators their uids"
                        + " again, or pass --allow-non-restored-state to drop that state");

        CheckpointRestore dropped = CheckpointRestore.of(savepoint, renamed, MAX, true);
        for (JobVertex vertex : renamed.vertices()) {
            for (int subtask = 0; subtask < vertex.parallelism(); subtask++) {
                assertThat(dropped.snapshot(vertex.id(), subtask).operators()).isEmpty();
            }
        }
    }

    @Test
    void anotherMaxParallelismIsAnErrorSayingWhichToRunWith() {
        assertThatThrownBy(() -> CheckpointRestore.check(savepoint(2, MAX), job(2, "sums"), 128, false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("savepoint 7 of job old at /sp/savepoint-old-7/_metadata has max parallelism 12 (its"
                        + " number of key groups), the job 128: run it with -D execution.max-parallelism=12");
    }
}
