package io.duraflow.taskmanager.task.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.NonRetriableException;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JoinOperatorTest {
    private static final TypeSerializer<Tuple2<Long, String>> ROW = Types.tuple(Types.LONG, Types.STRING);

    @TempDir
    Path spillDir;

    @SuppressWarnings({"unchecked", "rawtypes"})
    private HeadOperators.Join join(long budgetBytes, List<Object> out) {
        TypeSerializer<Object> row = (TypeSerializer) ROW;
        return new HeadOperators.Join(r -> ((Tuple2<Long, String>) r).f0(), r -> ((Tuple2<Long, String>) r).f0(),
                (TypeSerializer) Types.LONG, row, row,
                (l, r) -> ((Tuple2<Long, String>) l).f1() + "+" + ((Tuple2<Long, String>) r).f1(), budgetBytes,
                spillDir, out::add);
    }

    private List<Path> spillFiles() throws IOException {
        try (Stream<Path> files = Files.list(spillDir)) {
            return files.toList();
        }
    }

    @Test
    void aBuildSideFarBeyondTheBudgetIsJoinedCompletelyAndLeavesNoFiles() throws Exception {
        List<Object> out = new ArrayList<>();
        Map<String, Integer> expected = new HashMap<>();
        try (HeadOperators.Join join = join(20_000, out)) {
            for (long i = 0; i < 10_000; i++) {
                join.process(0, Tuple2.of(i, "c" + i), 12);
            }
            join.endInput(0);
            for (long i = 0; i < 30_000; i++) {
                long key = i * 7 % 11_000;
                join.process(1, Tuple2.of(key, "o" + i), 12);
                if (key < 10_000) {
                    expected.merge("c" + key + "+o" + i, 1, Integer::sum);
                }
            }
            join.endInput(1);
        }
        Map<String, Integer> actual = new HashMap<>();
        for (Object pair : out) {
            actual.merge((String) pair, 1, Integer::sum);
        }
        assertThat(actual).isEqualTo(expected);
        assertThat(spillFiles()).isEmpty();
    }

    @Test
    void aNullJoinKeyFailsTheJobAtOnce() {
        HeadOperators.Join join = join(1 << 20, new ArrayList<>());
        assertThatThrownBy(() -> join.process(0, Tuple2.of(null, "x"), 5)).isInstanceOf(NonRetriableException.class)
                .hasMessageContaining("join keys must not be null");
        join.close();
    }
}
