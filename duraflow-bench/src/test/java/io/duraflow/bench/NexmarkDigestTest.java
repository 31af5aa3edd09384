package io.duraflow.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.Tuple2;
import io.duraflow.examples.nexmark.Bid;
import io.duraflow.examples.nexmark.JoinQueries.CategoryAverage;
import io.duraflow.examples.nexmark.NexmarkConfig;
import io.duraflow.examples.nexmark.NexmarkExpected;
import io.duraflow.examples.nexmark.WindowQueries.HighestBid;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import org.junit.jupiter.api.Test;

class NexmarkDigestTest {
    private static final Duration WINDOW = Duration.ofSeconds(2);
    private static final NexmarkExpected EXPECTED = new NexmarkExpected(NexmarkConfig.defaults()
            .withEventsPerSecond(1_000), 6_000);

    @Test
    void resultsInAnyOrderDigestAsTheExpectedOnes() {
        List<HighestBid> results = new ArrayList<>(EXPECTED.q7(WINDOW));
        Collections.shuffle(results, new Random(7));
        NexmarkDigest.Accumulator accumulator = new NexmarkDigest.Accumulator("q7");
        results.forEach(accumulator::add);
        assertThat(accumulator.digest()).isEqualTo(NexmarkDigest.expected(EXPECTED, "q7", WINDOW, WINDOW, WINDOW));
    }

    @Test
    void aMissingOrChangedResultChangesTheDigest() {
        List<Bid> bids = EXPECTED.bids();
        NexmarkDigest.Digest all = NexmarkDigest.of(bids);
        assertThat(NexmarkDigest.of(bids.subList(1, bids.size()))).isNotEqualTo(all);
        List<Bid> changed = new ArrayList<>(bids);
        Bid first = changed.get(0);
        changed.set(0, new Bid(first.auction(), first.bidder(), first.price(), first.channel(), first.url(),
                first.dateTime(), first.extra() + "x"));
        assertThat(NexmarkDigest.of(changed).results()).isEqualTo(all.results());
        assertThat(NexmarkDigest.of(changed).hashSum()).isNotEqualTo(all.hashSum());
    }

    @Test
    void q4CountsOnlyTheFinalAverageOfEachCategoryWhateverCameBefore() {
        NexmarkDigest.Accumulator accumulator = new NexmarkDigest.Accumulator("q4");
        List<CategoryAverage> finals = List.copyOf(EXPECTED.q4().values());
        for (CategoryAverage last : finals) {
            accumulator.add(new CategoryAverage(last.category(), 1, 5, 5.0));
        }
        List<CategoryAverage> reversed = new ArrayList<>(finals);
        Collections.reverse(reversed);
        for (CategoryAverage last : reversed) {
            accumulator.add(last);
            accumulator.add(new CategoryAverage(last.category(), last.auctions() - 1, 1, 1.0));
        }
        assertThat(accumulator.digest()).isEqualTo(NexmarkDigest.expected(EXPECTED, "q4", WINDOW, WINDOW, WINDOW));
        assertThat(accumulator.digest().results()).isEqualTo(finals.size());
    }

    @Test
    void q2PairsDigestAlikeWhicheverPairTypeCarriesThem() {
        NexmarkDigest.Accumulator numbers = new NexmarkDigest.Accumulator("q2");
        NexmarkDigest.Accumulator tuples = new NexmarkDigest.Accumulator("q2");
        for (Bid bid : EXPECTED.bids()) {
            if (bid.auction() % 123 == 0) {
                numbers.addPair(bid.auction(), bid.price());
                tuples.add(Tuple2.of(bid.auction(), bid.price()));
            }
        }
        assertThat(numbers.digest()).isEqualTo(tuples.digest())
                .isEqualTo(NexmarkDigest.expected(EXPECTED, "q2", WINDOW, WINDOW, WINDOW));
        assertThat(numbers.digest().results()).isPositive();
    }

    @Test
    void aRunSurvivesTheTripThroughProperties() {
        NexmarkRun run = new NexmarkRun("q5", 5_000_000, 4_321, 9_876_543_210L, 4, 1, 120, 36, 0xfedcba9876543210L,
                800, 4_300);
        Properties properties = new Properties();
        run.put(properties);
        assertThat(NexmarkRun.from(properties, "q5")).isEqualTo(run);
        assertThat(NexmarkRun.from(properties, "q7")).isNull();
        assertThat(run.eventsPerSecond()).isEqualTo(5_000_000 * 1000.0 / 4_321);
        assertThat(run.cpuMillisPerMillionEvents()).isEqualTo(9_876.543210 / 5);
    }

    @Test
    void settingsSurviveTheCommandLine() {
        NexmarkBenchmark.Settings settings = new NexmarkBenchmark.Settings(4_000_000, 100_000, 0,
                Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(10));
        assertThat(NexmarkBenchmark.Settings.parse(settings.argument())).isEqualTo(settings);
        assertThat(settings.params()).containsEntry("event-rate", "100000").containsEntry("slide", "2000");
    }
}
