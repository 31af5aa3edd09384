package io.duraflow.examples.cdc;

import io.duraflow.api.checkpoint.SnapshotAvailability;
import io.duraflow.api.checkpoint.SoftFailureTolerance;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.ReaderOutput;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the splits of a {@link SnapshotChangelogSource}, one at a time, on the task thread (see
 * there for what it does). Its states: no split open (between chunks; maybe holding for a
 * checkpoint retry, {@link ChunkBoundaryHold}), a chunk open (declines checkpoints), the change
 * log open (takes part in every checkpoint at its exact byte offset), stalled in a chunk (a test
 * setting: the chunk never ends).
 *
 * <p>Rate: by time {@code t} since its first row it has emitted at most {@code rate * t} rows
 * (plus one poll's batch); ahead of that it says NOTHING_AVAILABLE and {@link #isAvailable()}
 * completes when the next row is due, so the task thread never sleeps. Time spent holding at a
 * boundary is made up afterwards, up to what the job downstream can take, in polls of at most
 * {@code rate / 100} rows (10 ms of its rate; {@value #RECORDS_PER_POLL} without a rate): a
 * checkpoint trigger is a mail the task runs between two polls, and a reader catching up with
 * whole chunks per poll would never be seen inside a chunk.
 *
 * <p>Logs, at INFO, each chunk that ended after it declined a checkpoint ({@value SnapshotChangelogSource#AVAILABLE_LOG}):
 * the moment the source became available again, which the checkpoint-rejection demo measures from.
 */
final class SnapshotChangelogReader implements SourceReader<String, CdcSplit> {
    static final int RECORDS_PER_POLL = 1024;
    private static final long STALL_RECHECK_MS = 100;
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotChangelogReader.class);

    private final SourceReaderContext context;
    private final long rowsPerSecond;
    private final long rowsPerPoll;
    private final long maxChunkTimeMs;
    private final int stalledChunk;
    private final boolean rejecting;
    private final LongSupplier nanoClock;
    private final SoftFailureTolerance tolerance;
    private final ChunkBoundaryHold hold;

    private final ArrayDeque<CdcSplit> pending = new ArrayDeque<>();
    private boolean requested;
    private boolean noMoreSplits;

    /** The split being read and its input; null between splits. */
    private CdcSplit current;
    private LineInput input;
    /** Rows of the current chunk emitted; lines of the change log read so far (its next line number). */
    private long emittedInSplit;
    private long splitOpenedMs;
    private boolean declinedInChunk;
    private boolean stalled;

    /** A chunk ended: the next poll decides whether to hold before opening another. */
    private boolean atBoundary;
    private boolean holding;
    private long holdUntilMs;
    private CompletableFuture<Void> holdRelease;

    private long startNanos = -1;
    private long emitted;

    SnapshotChangelogReader(SourceReaderContext context, long rowsPerSecond, long maxChunkTimeMs, long maxHoldMs,
            int stalledChunk, boolean rejecting, LongSupplier nanoClock) {
        this.context = context;
        this.rowsPerSecond = rowsPerSecond;
        this.rowsPerPoll = rowsPerSecond == SnapshotChangelogSource.UNLIMITED ? RECORDS_PER_POLL
                : Math.max(1, Math.min(RECORDS_PER_POLL, rowsPerSecond / 100));
        this.maxChunkTimeMs = maxChunkTimeMs;
        this.stalledChunk = stalledChunk;
        this.rejecting = rejecting;
        this.nanoClock = nanoClock;
        this.tolerance = new SoftFailureTolerance(Duration.ofMillis(maxChunkTimeMs), this::nowMs);
        this.hold = new ChunkBoundaryHold(maxHoldMs);
    }

    private long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong());
    }

    @Override
    public void start() {
        request();
    }

    private void request() {
        if (!requested && !noMoreSplits) {
            requested = true;
            context.sendSplitRequest();
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<String> output) throws IOException {
        if (current == null && !openNext()) {
            return noMoreSplits && pending.isEmpty() && !holding ? InputStatus.END_OF_INPUT
                    : InputStatus.NOTHING_AVAILABLE;
        }
        if (stalled) {
            return InputStatus.NOTHING_AVAILABLE;
        }
        long allowed = Math.min(allowedNow(), rowsPerPoll);
        if (allowed <= 0) {
            return InputStatus.NOTHING_AVAILABLE;
        }
        return current.kind() == CdcSplit.Kind.CHUNK ? readChunk(output, allowed) : readChangelog(output, allowed);
    }

    /** Opens the next split unless the reader holds at a boundary or has none; true if one is open. */
    private boolean openNext() throws IOException {
        long now = nowMs();
        if (atBoundary) {
            atBoundary = false;
            CdcSplit next = pending.peek();
            // The change log is always available: no need to hold before it.
            long until = next != null && next.kind() == CdcSplit.Kind.CHANGELOG ? now : hold.holdUntil(now);
            if (until > now) {
                holding = true;
                holdUntilMs = until;
                CompletableFuture<Void> release = new CompletableFuture<>();
                holdRelease = release;
                CompletableFuture.delayedExecutor(until - now, TimeUnit.MILLISECONDS)
                        .execute(() -> release.complete(null));
            }
        }
        if (holding) {
            if (now < holdUntilMs) {
                return false;
            }
            holding = false;
            hold.onHoldExpired();
        }
        CdcSplit next = pending.poll();
        if (next == null) {
            request();
            return false;
        }
        if (pending.isEmpty()) {
            request();  // one in reserve, so the next chunk rarely waits for the enumerator
        }
        current = next;
        input = new LineInput(Path.of(next.path()), next.offset());
        emittedInSplit = next.kind() == CdcSplit.Kind.CHUNK ? 0 : next.firstRow();
        splitOpenedMs = now;
        declinedInChunk = false;
        return true;
    }

    private InputStatus readChunk(Collector<String> output, long allowed) throws IOException {
        CdcSplit chunk = current;
        long stopAt = chunk.index() == stalledChunk ? chunk.rows() / 2 : chunk.rows();
        long n = Math.min(allowed, stopAt - emittedInSplit);
        for (long i = 0; i < n; i++) {
            String line = input.readLine();
            if (line == null) {
                throw new IOException("the table file " + chunk.path() + " ended inside " + chunk.describe()
                        + ": it must not change while the job runs");
            }
            output.collect(SnapshotChangelogSource.SNAPSHOT_TAG + line);
        }
        emitted += n;
        emittedInSplit += n;
        if (emittedInSplit == chunk.rows()) {
            endChunk();
        } else if (emittedInSplit == stopAt) {
            stalled = true;
            LOG.info("Snapshot-changelog reader {}: {} stalls after {} rows (job parameter stall-chunk) and never ends",
                    context.subtaskIndex(), chunk.describe(), emittedInSplit);
            return InputStatus.NOTHING_AVAILABLE;
        }
        return InputStatus.MORE_AVAILABLE;
    }

    private void endChunk() throws IOException {
        long now = nowMs();
        hold.onChunkEnded(now - splitOpenedMs);
        // Between chunks the source is available: a run of soft failures ends here.
        tolerance.check(SnapshotAvailability.available());
        if (declinedInChunk) {
            LOG.info("{} subtask {} finished {} after declining a checkpoint (retries came {} ms after a decline)",
                    SnapshotChangelogSource.AVAILABLE_LOG,
                    context.subtaskIndex(), current.describe(), hold.retryGapMs());
        }
        closeSplit();
        atBoundary = true;
    }

    private InputStatus readChangelog(Collector<String> output, long allowed) throws IOException {
        long n = 0;
        while (n < allowed) {
            String line = input.readLine();
            if (line == null) {
                closeSplit();
                return noMoreSplits && pending.isEmpty() ? InputStatus.END_OF_INPUT : InputStatus.MORE_AVAILABLE;
            }
            output.collect(SnapshotChangelogSource.CHANGE_TAG + line);
            n++;
            emittedInSplit++;
        }
        emitted += n;
        return InputStatus.MORE_AVAILABLE;
    }

    private void closeSplit() throws IOException {
        input.close();
        input = null;
        current = null;
    }

    private long allowedNow() {
        if (rowsPerSecond == SnapshotChangelogSource.UNLIMITED) {
            return Long.MAX_VALUE;
        }
        long now = nanoClock.getAsLong();
        if (startNanos < 0) {
            startNanos = now;
        }
        return (long) ((now - startNanos) / 1e9 * rowsPerSecond) + Math.min(RECORDS_PER_POLL, rowsPerSecond)
                - emitted;
    }

    @Override
    public CompletionStage<Void> isAvailable() {
        if (holding) {
            return holdRelease;
        }
        if (stalled) {
            return CompletableFuture.runAsync(() -> {},
                    CompletableFuture.delayedExecutor(STALL_RECHECK_MS, TimeUnit.MILLISECONDS));
        }
        if (current == null || rowsPerSecond == SnapshotChangelogSource.UNLIMITED) {
            return WAIT_FOR_SPLITS;
        }
        long waitNanos = Math.max(0, (long) ((1 - allowedNow()) * 1e9 / rowsPerSecond));
        return CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(waitNanos, TimeUnit.NANOSECONDS));
    }

    @Override
    public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
        long now = nowMs();
        if (rejecting && current != null && current.kind() == CdcSplit.Kind.CHUNK) {
            hold.onTrigger(now, true);
            declinedInChunk = true;
            SnapshotAvailability answer = tolerance.check(SnapshotAvailability.softFailure("reading "
                    + current.describe()));
            if (answer.kind() == SnapshotAvailability.Kind.HARD_FAILURE) {
                return SnapshotAvailability.hardFailure("a chunk did not end within max-chunk-time-ms="
                        + maxChunkTimeMs + ": " + answer.message());
            }
            return answer;
        }
        hold.onTrigger(now, false);
        tolerance.check(SnapshotAvailability.available());
        if (holding) {
            holding = false;
            holdRelease.complete(null);
        }
        return SnapshotAvailability.available();
    }

    /**
     * The splits not started and the open one's rest: the change log at its byte offset (or,
     * without rejection, a chunk's remaining rows). Never an open chunk of a rejecting reader:
     * it declined this checkpoint.
     */
    @Override
    public List<CdcSplit> snapshotState(long checkpointId) {
        List<CdcSplit> state = new ArrayList<>();
        if (current != null) {
            if (current.kind() == CdcSplit.Kind.CHANGELOG) {
                state.add(CdcSplit.changelog(current.path(), input.offset(), emittedInSplit));
            } else if (!rejecting) {
                state.add(CdcSplit.chunk(current.path(), current.index(), current.chunks(),
                        current.firstRow() + emittedInSplit, (int) (current.rows() - emittedInSplit), input.offset()));
            } else {
                throw new IllegalStateException("snapshot of checkpoint " + checkpointId + " asked while reading "
                        + current.describe() + ", whose position cannot be checkpointed (it declined)");
            }
        }
        state.addAll(pending);
        return state;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        hold.onCheckpointComplete();
    }

    @Override
    public void addSplits(List<CdcSplit> splits) {
        requested = false;
        pending.addAll(splits);
    }

    @Override
    public void notifyNoMoreSplits() {
        requested = false;
        noMoreSplits = true;
    }

    @Override
    public void close() throws IOException {
        if (input != null) {
            closeSplit();
        }
    }
}
