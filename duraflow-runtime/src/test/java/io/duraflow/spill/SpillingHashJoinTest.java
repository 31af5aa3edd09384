package io.duraflow.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillingHashJoinTest {
    private static final TypeSerializer<Tuple2<Long, String>> ROW = Types.tuple(Types.LONG, Types.STRING);

    @TempDir
    Path spillDir;

    /** The build and probe sides of one generated case. */
    record Case(List<Tuple2<Long, String>> left, List<Tuple2<Long, String>> right) {}

    /**
     * Keys drawn from a small or large range, with a share of one hot key, so cases have
     * duplicates on both sides, keys on one side only, and a key bigger than any budget.
     */
    private static Case randomCase(long seed) {
        Random random = new Random(seed);
        int keyRange = 1 + random.nextInt(random.nextBoolean() ? 20 : 5_000);
        double hotShare = random.nextInt(3) == 0 ? 0.3 + random.nextDouble() * 0.6 : 0;
        long hotKey = random.nextInt(keyRange);
        List<Tuple2<Long, String>> left = new ArrayList<>();
        List<Tuple2<Long, String>> right = new ArrayList<>();
        int leftCount = random.nextInt(1_200);
        int rightCount = random.nextInt(800);
        for (int i = 0; i < leftCount; i++) {
            long key = random.nextDouble() < hotShare ? hotKey : random.nextInt(keyRange);
            left.add(Tuple2.of(key, "L" + i + "-" + "x".repeat(random.nextInt(30))));
        }
        for (int i = 0; i < rightCount; i++) {
            long key = random.nextDouble() < hotShare ? hotKey : random.nextInt(keyRange + keyRange / 5 + 1);
            right.add(Tuple2.of(key, "R" + i));
        }
        return new Case(left, right);
    }

    /** A plain in-memory join of the two lists: the obviously right answer, as a multiset of pairs. */
    private static Map<String, Integer> naiveJoin(Case c) {
        Map<Long, List<String>> rightByKey = new HashMap<>();
        for (Tuple2<Long, String> r : c.right()) {
            rightByKey.computeIfAbsent(r.f0(), k -> new ArrayList<>()).add(r.f1());
        }
        Map<String, Integer> pairs = new HashMap<>();
        for (Tuple2<Long, String> l : c.left()) {
            for (String r : rightByKey.getOrDefault(l.f0(), List.of())) {
                pairs.merge(l.f1() + "|" + r, 1, Integer::sum);
            }
        }
        return pairs;
    }

    private static Map<String, Integer> run(SpillingHashJoin<Long, Tuple2<Long, String>, Tuple2<Long, String>> join,
            Case c) throws Exception {
        Map<String, Integer> pairs = new HashMap<>();
        SpillingHashJoin.MatchConsumer<Tuple2<Long, String>, Tuple2<Long, String>> out = (l, r) -> {
            assertThat(l.f0()).isEqualTo(r.f0());
            pairs.merge(l.f1() + "|" + r.f1(), 1, Integer::sum);
        };
        for (Tuple2<Long, String> l : c.left()) {
            join.build(l.f0(), l, 9 + l.f1().length());
        }
        join.endBuild();
        for (Tuple2<Long, String> r : c.right()) {
            join.probe(r.f0(), r, out);
        }
        join.finish(out);
        return pairs;
    }

    private SpillingHashJoin<Long, Tuple2<Long, String>, Tuple2<Long, String>> join(long budget, int fanOut) {
        return new SpillingHashJoin<>(Types.LONG, ROW, ROW, budget, spillDir, fanOut);
    }

    private List<Path> spillFiles() throws IOException {
        try (Stream<Path> files = Files.list(spillDir)) {
            return files.toList();
        }
    }

    @Test
    void randomCasesWithSmallBudgetsMatchANaiveJoin() throws Exception {
        long[] budgets = {0, 500, 4_000, 40_000, 1L << 30};
        int[] fanOuts = {2, 4, SpillingHashJoin.FAN_OUT};
        int spilled = 0;
        int chunked = 0;
        for (long seed = 0; seed < 60; seed++) {
            Case c = randomCase(seed);
            Map<String, Integer> expected = naiveJoin(c);
            long budget = budgets[(int) (seed % budgets.length)];
            int fanOut = fanOuts[(int) (seed / budgets.length % fanOuts.length)];
            try (var join = join(budget, fanOut)) {
                assertThat(run(join, c)).as("seed %d, budget %d, fan-out %d", seed, budget, fanOut)
                        .isEqualTo(expected);
                spilled += join.spilledPartitions() > 0 ? 1 : 0;
                chunked += join.chunkedPartitions() > 0 ? 1 : 0;
            }
            assertThat(spillFiles()).as("seed %d", seed).isEmpty();
        }
        assertThat(spilled).as("cases that spilled").isGreaterThan(20);
        assertThat(chunked).as("cases joined in chunks").isPositive();
    }

    @Test
    void aBuildSideThatFitsNeverTouchesTheDisk() throws Exception {
        Case c = randomCase(7);
        try (var join = join(1L << 30, SpillingHashJoin.FAN_OUT)) {
            assertThat(run(join, c)).isEqualTo(naiveJoin(c));
            assertThat(join.spilledBytes()).isZero();
            assertThat(join.spilledPartitions()).isZero();
            assertThat(join.deepestLevel()).isZero();
        }
    }

    @Test
    void uniformKeysFarBeyondTheBudgetRecurseAndKeepSomePartitionsInMemory() throws Exception {
        List<Tuple2<Long, String>> left = new ArrayList<>();
        List<Tuple2<Long, String>> right = new ArrayList<>();
        for (long i = 0; i < 20_000; i++) {
            left.add(Tuple2.of(i, "c" + i));
            right.add(Tuple2.of(i * 7 % 22_000, "o" + i));
            right.add(Tuple2.of(i, "p" + i));
        }
        Case c = new Case(left, right);
        // About 1.4 MB of build side against 100 KB: level 1 is needed with a fan-out of 4.
        try (var join = join(100_000, 4)) {
            assertThat(run(join, c)).isEqualTo(naiveJoin(c));
            assertThat(join.deepestLevel()).isGreaterThanOrEqualTo(1);
            assertThat(join.spilledPartitions()).isGreaterThan(4);
            assertThat(join.chunkedPartitions()).isZero();
            assertThat(join.spilledBytes()).isPositive();
        }
        assertThat(spillFiles()).isEmpty();
    }

    @Test
    void oneKeyLargerThanTheBudgetIsJoinedInChunks() throws Exception {
        List<Tuple2<Long, String>> left = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            left.add(Tuple2.of(42L, "hot" + i));
        }
        Case c = new Case(left, List.of(Tuple2.of(42L, "a"), Tuple2.of(7L, "b"), Tuple2.of(42L, "c")));
        try (var join = join(10_000, SpillingHashJoin.FAN_OUT)) {
            Map<String, Integer> result = run(join, c);
            assertThat(result).isEqualTo(naiveJoin(c)).hasSize(10_000);
            assertThat(join.chunkedPartitions()).isEqualTo(1);
        }
        assertThat(spillFiles()).isEmpty();
    }

    @Test
    void aFailureWhileJoiningSpilledPartitionsLeavesNoFileAfterClose() throws Exception {
        Case c = randomCase(3);
        try (var join = join(0, 4)) {
            for (Tuple2<Long, String> l : c.left()) {
                join.build(l.f0(), l, 20);
            }
            join.endBuild();
            for (Tuple2<Long, String> r : c.right()) {
                join.probe(r.f0(), r, (l, rr) -> {});
            }
            assertThat(spillFiles()).isNotEmpty();
            assertThatThrownBy(() -> join.finish((l, r) -> {
                throw new IllegalStateException("user function failed");
            })).hasMessage("user function failed");
        }
        assertThat(spillFiles()).isEmpty();
    }

    @Test
    void closingWhileBuildingClosesTheOpenPartitionFilesAndDeletesThem() throws Exception {
        var join = join(1_000, SpillingHashJoin.FAN_OUT);
        for (long i = 0; i < 2_000; i++) {
            join.build(i, Tuple2.of(i, "v"), 11);
        }
        assertThat(join.spilledPartitions()).isPositive();
        assertThat(spillFiles()).isNotEmpty();
        join.close();
        assertThat(spillFiles()).isEmpty();
        assertThatThrownBy(() -> join.build(1L, Tuple2.of(1L, "v"), 11)).isInstanceOf(IllegalStateException.class)
                .hasMessage("join is closed, expected building");
    }
}
