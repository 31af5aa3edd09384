package io.duraflow.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.Tuple2;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Watermark alignment end to end ({@link AlignedSources}): a source that makes event time 100
 * times faster than the other one of its alignment group stays within the maximum drift of it,
 * plus what it reads between its watermark passing the limit and the announcement that stops it;
 * without alignment it runs far ahead. The fast source is held only while the slow one runs: once
 * the slow one finished, it no longer counts, and the fast one reads the rest of its records.
 */
class WatermarkAlignmentTest {
    private static final long RECORDS = 400;
    private static final long RATE = 200;
    /** Event time the fast source makes per second of processing time at {@link #RATE}. */
    private static final long FAST_EVENT_MS_PER_S = RATE * AlignedSources.FAST_MS_PER_RECORD;
    /**
     * The most processing time the fast reader may read for past the limit: a watermark interval,
     * an update interval, the report and the announcement, and scheduling on shared cores.
     */
    private static final long SLACK_MS = 400;
    private static final Map<String, String> CONFIG = Map.of("execution.runtime-mode", "streaming",
            "pipeline.auto-watermark-interval", "50ms");

    @RegisterExtension
    static final DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(1).slots(3).build();

    @Test
    void theFastSourceStaysWithinTheDriftOfTheSlowOne() {
        long lead = maxLeadWhileTheSlowSourceRuns("true");

        long bound = AlignedSources.MAX_DRIFT.toMillis() + SLACK_MS * FAST_EVENT_MS_PER_S / 1_000;
        System.out.printf("watermark alignment: the fast source led by at most %d ms of event time (bound %d)%n",
                lead, bound);
        assertThat(lead).as("the fast source's lead over the slow one, in event time").isLessThanOrEqualTo(bound);
    }

    @Test
    void withoutAlignmentTheFastSourceRunsFarAhead() {
        long lead = maxLeadWhileTheSlowSourceRuns("false");

        System.out.printf("without watermark alignment: the fast source led by %d ms of event time%n", lead);
        assertThat(lead).as("the fast source's lead without alignment").isGreaterThan(15_000);
    }

    /** Runs the job; the fast source's largest lead over the slow one seen downstream while the slow one ran. */
    private static long maxLeadWhileTheSlowSourceRuns(String aligned) {
        JobOutcome outcome = cluster.run(AlignedSources.class, Map.of("records", Long.toString(RECORDS), "rate",
                Long.toString(RATE), "aligned", aligned), 1, CONFIG);

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        List<Tuple2<Long, Long>> seen = outcome.collected(AlignedSources.LAGS);
        long lastSlow = AlignedSources.SLOW_START_MS + RECORDS - 1;
        long fastEnd = AlignedSources.FAST_MS_PER_RECORD * (RECORDS - 1);
        assertThat(seen).as("every fast record after the first slow one").isNotEmpty()
                .last().extracting(Tuple2::f0).isEqualTo(fastEnd);
        return seen.stream().filter(s -> s.f1() < lastSlow).mapToLong(s -> s.f0() - s.f1()).max()
                .orElseThrow();
    }
}
