package io.duraflow.cli.demo;

import io.duraflow.cli.kafka.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The output topic of the Kafka demo as a downstream {@code read_committed} consumer sees it while
 * the job runs: how many records are committed, and when committed records arrived. An
 * exactly-once sink makes its output visible at each checkpoint (it commits the checkpoint's
 * transactions), so records arrive in bursts about a checkpoint interval apart, and a crash shows
 * as a longer pause ({@link #longestPause}).
 *
 * <p>Used by the demo's polling thread only.
 */
final class CommittedOutputWatch implements AutoCloseable {
    private final TopicReader reader;
    /** When committed records arrived (epoch ms, one entry per poll that read some), in order. */
    private final List<Long> arrivalsMs = new ArrayList<>();
    private long committed;

    CommittedOutputWatch(String bootstrap, String topic) {
        this.reader = new TopicReader(bootstrap, topic, true);
    }

    /** Reads what was committed since the last poll, waiting a few ms at most. */
    void poll() {
        int read = reader.poll(Duration.ofMillis(5), value -> {});
        if (read > 0) {
            committed += read;
            arrivalsMs.add(System.currentTimeMillis());
        }
    }

    /** Committed output records read so far. */
    long committed() {
        return committed;
    }

    List<Long> arrivalsMs() {
        return arrivalsMs;
    }

    /**
     * The longest time without newly committed output between consecutive arrivals
     * ({@code arrivalsMs}, ascending) among the gaps that end in {@code [fromMs, toMs]}: the gap a
     * crash at {@code fromMs} left in the output, when {@code toMs} is when the output had surely
     * resumed (the first checkpoint after the crash completed, and a little more). A gap that ends
     * later is not the crash's (such as the one after the last output of a finished input). Zero
     * if no gap ends there.
     */
    static long longestPause(List<Long> arrivalsMs, long fromMs, long toMs) {
        long longest = 0;
        for (int i = 1; i < arrivalsMs.size(); i++) {
            long end = arrivalsMs.get(i);
            if (end >= fromMs && end <= toMs) {
                longest = Math.max(longest, end - arrivalsMs.get(i - 1));
            }
        }
        return longest;
    }

    @Override
    public void close() {
        reader.close();
    }
}
