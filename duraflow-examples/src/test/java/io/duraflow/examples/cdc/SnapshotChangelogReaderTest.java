package io.duraflow.examples.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.checkpoint.SnapshotAvailability;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.SourceReaderContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reader driven directly with a manual clock and an in-memory enumerator (a queue of the
 * planned splits, answering each request at once): availability answers, and exact positions
 * through restores at random points.
 */
class SnapshotChangelogReaderTest {
    @TempDir
    Path dir;

    /** One reader, its enumerator's queue and what it emitted. */
    private final class Harness implements SourceReaderContext {
        final List<CdcSplit> queue;
        final List<String> output = new ArrayList<>();
        final long[] nowNanos = {TimeUnit.SECONDS.toNanos(1000)};
        SnapshotChangelogReader reader;
        boolean requested;

        Harness(List<CdcSplit> queue, long maxChunkTimeMs, int stalledChunk, boolean rejecting) {
            this(queue, List.of(), maxChunkTimeMs, stalledChunk, rejecting);
        }

        /** A reader restored with {@code restored} splits (its checkpointed state). */
        Harness(List<CdcSplit> queue, List<CdcSplit> restored, long maxChunkTimeMs, int stalledChunk,
                boolean rejecting) {
            this(queue, restored, maxChunkTimeMs, stalledChunk, rejecting, SnapshotChangelogSource.UNLIMITED);
        }

        /** A rejecting reader limited to {@code rowsPerSecond}. */
        Harness(List<CdcSplit> queue, long rowsPerSecond) {
            this(queue, List.of(), 60_000, -1, true, rowsPerSecond);
        }

        Harness(List<CdcSplit> queue, List<CdcSplit> restored, long maxChunkTimeMs, int stalledChunk,
                boolean rejecting, long rowsPerSecond) {
            this.queue = new ArrayList<>(queue);
            reader = new SnapshotChangelogReader(this, rowsPerSecond, maxChunkTimeMs, 0,
                    stalledChunk, rejecting, () -> nowNanos[0]);
            if (!restored.isEmpty()) {
                reader.addSplits(restored);
            }
            reader.start();
            deliver();
        }

        @Override
        public int subtaskIndex() {
            return 0;
        }

        @Override
        public int parallelism() {
            return 1;
        }

        @Override
        public void sendSplitRequest() {
            requested = true;
        }

        void deliver() {
            if (requested) {
                requested = false;
                if (queue.isEmpty()) {
                    reader.notifyNoMoreSplits();
                } else {
                    reader.addSplits(List.of(queue.remove(0)));
                }
            }
        }

        InputStatus poll() throws Exception {
            Collector<String> collector = output::add;
            InputStatus status = reader.pollNext(io.duraflow.api.source.ReaderOutput.of(collector));
            deliver();
            return status;
        }

        void advanceMs(long ms) {
            nowNanos[0] += TimeUnit.MILLISECONDS.toNanos(ms);
        }
    }

    private List<CdcSplit> plan(long rows, long changes, int chunkRows) throws Exception {
        Path table = dir.resolve("table.csv");
        Path changelog = dir.resolve("changes.csv");
        CdcFiles.write(table, rows, changelog, changes);
        return SnapshotChangelogSource.of(table, changelog).withChunkRows(chunkRows).planSplits();
    }

    @Test
    void plansChunksOfTheTableThenTheChangelog() throws Exception {
        List<CdcSplit> splits = plan(2500, 10, 1000);

        assertThat(splits).hasSize(4);
        assertThat(splits.get(0).describe()).isEqualTo("chunk 0 of 3 of table.csv (rows 0-999)");
        assertThat(splits.get(2).describe()).isEqualTo("chunk 2 of 3 of table.csv (rows 2000-2499)");
        assertThat(splits.get(3).kind()).isEqualTo(CdcSplit.Kind.CHANGELOG);
        for (CdcSplit split : splits) {
            assertThat(CdcSplit.SERIALIZER.fromBytes(CdcSplit.SERIALIZER.toBytes(split))).isEqualTo(split);
        }
    }

    @Test
    void aReaderBehindItsRateCatchesUpInSmallPollsSoATriggerBetweenThemFindsTheChunkOpen() throws Exception {
        // 4,000 rows/s: at most 40 rows (10 ms of the rate) per poll. CheckpointRejectionDemoIT saw no soft
        // decline at all on a loaded machine: a reader behind its rate read a whole 500-row chunk in one poll,
        // so every trigger (a mail between two polls) found it between chunks.
        Harness h = new Harness(plan(3000, 10, 500), 4_000);
        h.poll();  // opens chunk 0 and starts the clock
        h.advanceMs(10_000);  // the reader falls far behind its rate (a starved task thread)

        h.poll();

        assertThat(h.output).hasSizeBetween(1, 80);
        assertThat(h.reader.isSnapshotAvailable(1).kind()).isEqualTo(SnapshotAvailability.Kind.SOFT_FAILURE);
        while (h.output.size() < 500) {
            assertThat(h.poll()).isNotEqualTo(InputStatus.NOTHING_AVAILABLE);  // still catching up, no waiting
        }
        assertThat(h.reader.isSnapshotAvailable(2)).isEqualTo(SnapshotAvailability.available());
    }

    @Test
    void declinesSoftlyWhileAChunkIsOpenAndIsAvailableBetweenChunksAndInTheChangelog() throws Exception {
        Harness h = new Harness(plan(3000, 5000, 1000), 60_000, -1, true);
        h.poll();  // opens chunk 0, emits 1024 of its rows at most
        assertThat(h.output).hasSize(1000);  // the whole chunk: 1,000 rows < one poll
        assertThat(h.reader.isSnapshotAvailable(1)).isEqualTo(SnapshotAvailability.available());
        assertThat(h.reader.snapshotState(1)).extracting(CdcSplit::splitId).containsExactly("chunk-1");

        Harness small = new Harness(plan(3000, 5000, 1500), 60_000, -1, true);
        small.poll();  // 1,024 of chunk 0's 1,500 rows
        SnapshotAvailability answer = small.reader.isSnapshotAvailable(2);
        assertThat(answer.kind()).isEqualTo(SnapshotAvailability.Kind.SOFT_FAILURE);
        assertThat(answer.message()).isEqualTo("reading chunk 0 of 2 of table.csv (rows 0-1499)");
        assertThatThrownBy(() -> small.reader.snapshotState(2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot be checkpointed");
        while (small.output.size() < 3000 + 10) {
            small.poll();
        }
        // In the change log: available, and the position is its byte offset.
        assertThat(small.reader.isSnapshotAvailable(3).isAvailable()).isTrue();
        List<CdcSplit> state = small.reader.snapshotState(3);
        assertThat(state).hasSize(1);
        assertThat(state.get(0).kind()).isEqualTo(CdcSplit.Kind.CHANGELOG);
        assertThat(state.get(0).firstRow()).isEqualTo(small.output.size() - 3000);
    }

    @Test
    void aChunkThatNeverEndsDeclinesHardAfterTheLimitNamingIt() throws Exception {
        Harness h = new Harness(plan(4000, 10, 1000), 5_000, 1, true);
        for (int i = 0; i < 10; i++) {
            h.poll();
        }
        assertThat(h.output).hasSize(1500);  // chunk 0, then half of chunk 1
        assertThat(h.poll()).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(h.reader.isSnapshotAvailable(1).kind()).isEqualTo(SnapshotAvailability.Kind.SOFT_FAILURE);
        h.advanceMs(5_000);
        assertThat(h.reader.isSnapshotAvailable(2).kind()).isEqualTo(SnapshotAvailability.Kind.SOFT_FAILURE);
        h.advanceMs(1);
        SnapshotAvailability hard = h.reader.isSnapshotAvailable(3);
        assertThat(hard.kind()).isEqualTo(SnapshotAvailability.Kind.HARD_FAILURE);
        assertThat(hard.message()).startsWith("a chunk did not end within max-chunk-time-ms=5000: unavailable for"
                + " 5001 ms").endsWith("reading chunk 1 of 4 of table.csv (rows 1000-1999)");
    }

    @Test
    void aChunkThatEndsInTimeResetsTheLimit() throws Exception {
        Harness h = new Harness(plan(4000, 10, 1500), 1_000, -1, true);
        h.poll();
        assertThat(h.reader.isSnapshotAvailable(1).kind()).isEqualTo(SnapshotAvailability.Kind.SOFT_FAILURE);
        h.advanceMs(900);
        h.poll();  // chunk 0 ends
        h.poll();  // chunk 1 opens
        h.advanceMs(900);
        assertThat(h.reader.isSnapshotAvailable(2).kind()).isEqualTo(SnapshotAvailability.Kind.SOFT_FAILURE);
    }

    @Test
    void restoresExactlyFromCheckpointsAtRandomPoints() throws Exception {
        for (boolean rejecting : new boolean[] {true, false}) {
            for (long seed = 0; seed < 20; seed++) {
                Random random = new Random(seed);
                long rows = 1 + random.nextInt(6000);
                long changes = random.nextInt(4000);
                List<CdcSplit> splits = plan(rows, changes, 1 + random.nextInt(2000));
                List<String> output = runWithRestores(splits, random, rejecting);
                assertThat(CdcFiles.check(output, CdcFiles.expected(rows, changes)))
                        .as("seed %d, rejecting %s", seed, rejecting).isEmpty();
            }
        }
    }

    /**
     * Polls to the end; checkpoints at random (kept only when available) and crashes at random,
     * then restores a new reader and enumerator queue from the last checkpoint and drops what
     * was emitted after it, as the exactly-once sink would.
     */
    private List<String> runWithRestores(List<CdcSplit> splits, Random random, boolean rejecting) throws Exception {
        Harness h = new Harness(splits, 60_000, -1, rejecting);
        List<CdcSplit> checkpointQueue = new ArrayList<>(splits);
        List<CdcSplit> checkpointState = List.of();
        int checkpointOutput = 0;
        boolean fresh = true;
        int crashes = 0;
        while (true) {
            InputStatus status = h.poll();
            if (status == InputStatus.END_OF_INPUT) {
                return h.output;
            }
            if (random.nextInt(3) == 0) {
                long id = random.nextInt(1000);
                if (h.reader.isSnapshotAvailable(id).isAvailable()) {
                    checkpointState = h.reader.snapshotState(id);
                    checkpointQueue = new ArrayList<>(h.queue);
                    checkpointOutput = h.output.size();
                    fresh = false;
                    h.reader.notifyCheckpointComplete(id);
                }
            }
            if (crashes < 5 && random.nextInt(8) == 0) {
                crashes++;
                List<String> kept = new ArrayList<>(h.output.subList(0, checkpointOutput));
                h = fresh ? new Harness(splits, 60_000, -1, rejecting)
                        : new Harness(checkpointQueue, checkpointState, 60_000, -1, rejecting);
                h.output.addAll(kept);
            }
        }
    }
}
