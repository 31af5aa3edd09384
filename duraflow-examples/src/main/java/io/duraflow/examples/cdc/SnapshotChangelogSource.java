package io.duraflow.examples.cdc;

import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.QueueSplitEnumerator;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A change-data-capture style source over two files: a table read in chunks (which decline
 * checkpoints softly while open), then its change log. Bounded; both files must not change while
 * the job runs. See docs/design/checkpoint-rejection.md#snapshotchangelogsource.
 */
public final class SnapshotChangelogSource implements Source<String, CdcSplit> {
    /** No rate limit. */
    public static final long UNLIMITED = 0;
    public static final String SNAPSHOT_TAG = "snapshot,";
    public static final String CHANGE_TAG = "change,";
    /**
     * What a reader logs (at INFO, then {@code subtask N finished <chunk> ...}) when a chunk in
     * which it declined a checkpoint ended: the moment it became available again.
     */
    public static final String AVAILABLE_LOG = "Snapshot-changelog reader available again:";

    private static final TypeSerializer<String> TYPE = Types.STRING;

    private final String table;
    private final String changelog;
    private final int chunkRows;
    private final long rowsPerSecond;
    private final long maxChunkTimeMs;
    private final long maxHoldMs;
    private final int stalledChunk;
    private final boolean rejecting;

    private SnapshotChangelogSource(String table, String changelog, int chunkRows, long rowsPerSecond,
            long maxChunkTimeMs, long maxHoldMs, int stalledChunk, boolean rejecting) {
        if (chunkRows < 1 || rowsPerSecond < 0 || maxChunkTimeMs < 0 || maxHoldMs < 0) {
            throw new IllegalArgumentException("bad snapshot-changelog source settings: chunkRows=" + chunkRows
                    + ", rate=" + rowsPerSecond + ", maxChunkTimeMs=" + maxChunkTimeMs + ", maxHoldMs=" + maxHoldMs);
        }
        this.table = table;
        this.changelog = changelog;
        this.chunkRows = chunkRows;
        this.rowsPerSecond = rowsPerSecond;
        this.maxChunkTimeMs = maxChunkTimeMs;
        this.maxHoldMs = maxHoldMs;
        this.stalledChunk = stalledChunk;
        this.rejecting = rejecting;
    }

    /** Chunks of 1,000 rows, no rate limit, a chunk may decline for 60 s, a reader waits up to 1 s for a retry. */
    public static SnapshotChangelogSource of(Path table, Path changelog) {
        return new SnapshotChangelogSource(table.toAbsolutePath().normalize().toString(),
                changelog.toAbsolutePath().normalize().toString(), 1000, UNLIMITED, 60_000, 1000, -1, true);
    }

    public SnapshotChangelogSource withChunkRows(int rows) {
        return new SnapshotChangelogSource(table, changelog, rows, rowsPerSecond, maxChunkTimeMs, maxHoldMs,
                stalledChunk, rejecting);
    }

    /** Rows (and changes) per second over all readers; {@link #UNLIMITED}: as fast as possible. */
    public SnapshotChangelogSource withRate(long perSecond) {
        return new SnapshotChangelogSource(table, changelog, chunkRows, perSecond, maxChunkTimeMs, maxHoldMs,
                stalledChunk, rejecting);
    }

    /** How long a reader may decline checkpoints in a row while one chunk is open before it declines hard. */
    public SnapshotChangelogSource withMaxChunkTimeMs(long ms) {
        return new SnapshotChangelogSource(table, changelog, chunkRows, rowsPerSecond, ms, maxHoldMs, stalledChunk,
                rejecting);
    }

    /** Longest wait at a chunk boundary for the retry of a declined checkpoint; 0 never waits. */
    public SnapshotChangelogSource withMaxHoldMs(long ms) {
        return new SnapshotChangelogSource(table, changelog, chunkRows, rowsPerSecond, maxChunkTimeMs, ms,
                stalledChunk, rejecting);
    }

    /** Chunk {@code index} stops after half its rows and never ends (-1: none), in every attempt. */
    public SnapshotChangelogSource withStalledChunk(int index) {
        return new SnapshotChangelogSource(table, changelog, chunkRows, rowsPerSecond, maxChunkTimeMs, maxHoldMs,
                index, rejecting);
    }

    /** The baseline that never declines (see the class comment). */
    public SnapshotChangelogSource withoutRejection() {
        return new SnapshotChangelogSource(table, changelog, chunkRows, rowsPerSecond, maxChunkTimeMs, maxHoldMs,
                stalledChunk, false);
    }

    @Override
    public Boundedness boundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SplitEnumerator<CdcSplit> createEnumerator(SplitEnumeratorContext<CdcSplit> context) throws IOException {
        return new QueueSplitEnumerator<>(context, CdcSplit.SERIALIZER, planSplits());
    }

    /** The table's chunks in order, then the change log from its start. */
    List<CdcSplit> planSplits() throws IOException {
        List<long[]> starts = new ArrayList<>();  // {first row, byte offset}
        long rows = 0;
        try (LineInput in = new LineInput(Path.of(table), 0)) {
            long offset = in.offset();
            while (in.readLine() != null) {
                if (rows % chunkRows == 0) {
                    starts.add(new long[] {rows, offset});
                }
                rows++;
                offset = in.offset();
            }
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("the table file " + table + " does not exist", e);
        }
        if (starts.size() > Integer.MAX_VALUE / 2) {
            throw new IOException("the table " + table + " has too many chunks of " + chunkRows + " rows");
        }
        List<CdcSplit> splits = new ArrayList<>(starts.size() + 1);
        for (int i = 0; i < starts.size(); i++) {
            long first = starts.get(i)[0];
            splits.add(CdcSplit.chunk(table, i, starts.size(), first, (int) Math.min(chunkRows, rows - first),
                    starts.get(i)[1]));
        }
        splits.add(CdcSplit.changelog(changelog, 0, 0));
        return splits;
    }

    @Override
    public SplitEnumerator<CdcSplit> restoreEnumerator(SplitEnumeratorContext<CdcSplit> context, byte[] state) {
        return QueueSplitEnumerator.restore(context, CdcSplit.SERIALIZER, state);
    }

    @Override
    public SourceReader<String, CdcSplit> createReader(SourceReaderContext context) {
        long perReader = rowsPerSecond == UNLIMITED ? UNLIMITED
                : Math.max(1, rowsPerSecond / Math.max(1, context.parallelism()));
        return new SnapshotChangelogReader(context, perReader, maxChunkTimeMs, maxHoldMs, stalledChunk, rejecting,
                System::nanoTime);
    }

    @Override
    public SplitSerializer<CdcSplit> splitSerializer() {
        return CdcSplit.SERIALIZER;
    }

    @Override
    public TypeSerializer<String> producedType() {
        return TYPE;
    }

    @Override
    public String description() {
        return "snapshot-changelog(table=" + table + ",changelog=" + changelog + ",chunkRows=" + chunkRows + ",rate="
                + rowsPerSecond + ",maxChunkTimeMs=" + maxChunkTimeMs + ",maxHoldMs=" + maxHoldMs + ",stalledChunk="
                + stalledChunk + ",rejecting=" + rejecting + ")";
    }
}
