package io.duraflow.state;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of how key groups are dealt to parallel instances, over any max parallelism and
 * parallelism: what rescaling from any snapshot relies on.
 */
class KeyGroupRangePropertiesTest {
    @Property(tries = 500)
    void everyKeyGroupHasExactlyOneOwnerAndRangesDifferInSizeByAtMostOne(
            @ForAll @IntRange(min = 1, max = 32_768) int maxParallelism, @ForAll @IntRange(min = 1, max = 512) int p) {
        Assume.that(p <= maxParallelism);
        int expectedStart = 0;
        int smallest = Integer.MAX_VALUE;
        int largest = 0;
        for (int index = 0; index < p; index++) {
            KeyGroupRange range = KeyGroupRange.ofOperatorIndex(maxParallelism, p, index);
            // Contiguous, in order, no gap and no overlap: together they cover 0..max-1 once.
            assertThat(range.start()).isEqualTo(expectedStart);
            assertThat(range.isEmpty()).isFalse();
            expectedStart = range.end() + 1;
            smallest = Math.min(smallest, range.size());
            largest = Math.max(largest, range.size());
            assertThat(KeyGroupRange.operatorIndexOf(maxParallelism, p, range.start())).isEqualTo(index);
            assertThat(KeyGroupRange.operatorIndexOf(maxParallelism, p, range.end())).isEqualTo(index);
        }
        assertThat(expectedStart).isEqualTo(maxParallelism);
        assertThat(largest - smallest).isLessThanOrEqualTo(1);
    }

    @Property(tries = 500)
    void theOwnerOfAKeyGroupIsTheInstanceWhoseRangeContainsIt(
            @ForAll @IntRange(min = 1, max = 32_768) int maxParallelism, @ForAll @IntRange(min = 1, max = 512) int p,
            @ForAll @IntRange(min = 0, max = 32_767) int keyGroup) {
        Assume.that(p <= maxParallelism && keyGroup < maxParallelism);
        int owner = KeyGroupRange.operatorIndexOf(maxParallelism, p, keyGroup);
        assertThat(KeyGroupRange.ofOperatorIndex(maxParallelism, p, owner).contains(keyGroup)).isTrue();
    }

    @Property(tries = 300)
    void intersectionsOfTwoLayoutsCoverEachKeyGroupOnce(@ForAll @IntRange(min = 1, max = 4_096) int maxParallelism,
            @ForAll @IntRange(min = 1, max = 64) int before, @ForAll @IntRange(min = 1, max = 64) int after) {
        Assume.that(before <= maxParallelism && after <= maxParallelism);
        // Rescaling: each new instance reads the intersections of its range with the old ranges.
        int covered = 0;
        for (int n = 0; n < after; n++) {
            KeyGroupRange target = KeyGroupRange.ofOperatorIndex(maxParallelism, after, n);
            for (int o = 0; o < before; o++) {
                covered += KeyGroupRange.ofOperatorIndex(maxParallelism, before, o).intersection(target).size();
            }
        }
        assertThat(covered).isEqualTo(maxParallelism);
    }
}
