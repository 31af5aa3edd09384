package io.duraflow.jobmanager.events;

import io.duraflow.config.Configuration;
import io.duraflow.config.JobRecoveryOptions;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.jobmanager.events.proto.JobEvent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends a job's events to its job event log without blocking the caller: callers encode into a
 * pending buffer, the thread "job-event-writer" writes whole batches and syncs. A failure disables
 * the writer and drops events, never throws. Thread-safe. See
 * docs/design/job-event-log.md#jobeventwriter.
 */
public final class JobEventWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobEventWriter.class);
    /** Name of the thread that writes, one per writer. */
    public static final String THREAD_NAME = "job-event-writer";
    private static final int MAX_CREATE_ATTEMPTS = 16;

    /**
     * Creates and opens a new log file for writing, failing with {@link FileAlreadyExistsException}
     * if it exists; tests replace it to inject failures.
     */
    @FunctionalInterface
    interface FileOpener {
        FsOutputStream createNew(FsPath file) throws IOException;
    }

    private final FileSystem fileSystem;
    private final FsPath dir;
    private final long bufferBytes;
    private final long flushIntervalMs;
    private final long maxPendingBytes;
    /** Runs every write, close and timer action, one at a time, in submission order. */
    private final Mailbox writerThread;
    private final Runnable stopWriterThread;
    private final FileOpener opener;
    /** Collected data of one finish above this many bytes goes out of line. */
    private final long outOfLineThresholdBytes;
    private final LongSupplier random;

    private final Object lock = new Object();
    /** Events appended and not yet taken by a flush. Guarded by lock. */
    private RecordBuffer pending = new RecordBuffer();
    /** The buffer a flush returns after writing; null while a flush writes it. Guarded by lock. */
    private RecordBuffer spare = new RecordBuffer();
    /** Flush due flushInterval after the oldest pending event; null while pending is empty. Guarded by lock. */
    private Mailbox.Cancellable intervalFlush;
    /** A flush for a full buffer is queued on the writer thread. Guarded by lock. */
    private boolean sizeFlushQueued;
    /** Completes when the writer has stopped; set by closeAsync()/abandon(). Guarded by lock. */
    private CompletableFuture<Void> closed;

    /** The open log file; writer thread only. */
    private FsOutputStream out;
    /** The collected data file being written, for the warning if that fails; writer thread only. */
    private FsPath writingCollected;
    private volatile FsPath file;

    /** Why the writer is disabled; null while it records. */
    private final AtomicReference<IOException> disabledCause = new AtomicReference<>();
    private final AtomicLong droppedEvents = new AtomicLong();
    private final AtomicLong writtenEvents = new AtomicLong();
    /** Bytes written and synced to the log's files (headers included). */
    private final AtomicLong writtenBytes = new AtomicLong();

    /**
     * A writer with its own writer thread.
     *
     * @param fileSystem holds {@code dir}
     * @param dir the job's log directory; created with the first batch
     * @param bufferBytes a batch is written when this many bytes are buffered, 1 to 64 MiB
     * @param flushInterval longest time an event waits in the buffer, counted from the oldest unwritten event
     */
    public JobEventWriter(FileSystem fileSystem, FsPath dir, long bufferBytes, Duration flushInterval) {
        this(fileSystem, dir, bufferBytes, flushInterval, ownThread(),
                file -> fileSystem.create(file, WriteMode.EXCLUSIVE));
    }

    /** For tests: {@code writerThread} runs the writes (e.g. a manual scheduler); {@code opener} creates files. */
    JobEventWriter(FileSystem fileSystem, FsPath dir, long bufferBytes, Duration flushInterval, Mailbox writerThread,
            FileOpener opener) {
        this(fileSystem, dir, bufferBytes, flushInterval, writerThread, () -> { }, opener,
                CollectedDataFiles.OUT_OF_LINE_THRESHOLD_BYTES);
    }

    /** For tests: as above, with collected data above {@code outOfLineThresholdBytes} out of line. */
    JobEventWriter(FileSystem fileSystem, FsPath dir, long bufferBytes, Duration flushInterval, Mailbox writerThread,
            FileOpener opener, long outOfLineThresholdBytes) {
        this(fileSystem, dir, bufferBytes, flushInterval, writerThread, () -> { }, opener, outOfLineThresholdBytes);
    }

    private JobEventWriter(FileSystem fileSystem, FsPath dir, long bufferBytes, Duration flushInterval,
            ScheduledThreadPoolExecutor executor, FileOpener opener) {
        this(fileSystem, dir, bufferBytes, flushInterval, schedulerOf(executor), executor::shutdown, opener,
                CollectedDataFiles.OUT_OF_LINE_THRESHOLD_BYTES);
    }

    private JobEventWriter(FileSystem fileSystem, FsPath dir, long bufferBytes, Duration flushInterval,
            Mailbox writerThread, Runnable stopWriterThread, FileOpener opener,
            long outOfLineThresholdBytes) {
        if (bufferBytes < 1 || bufferBytes > JobEventLogFormat.MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("write buffer of " + bufferBytes + " bytes; expected 1 to "
                    + JobEventLogFormat.MAX_PAYLOAD_BYTES);
        }
        if (flushInterval.isNegative() || flushInterval.isZero()) {
            throw new IllegalArgumentException("flush interval must be positive: " + flushInterval);
        }
        this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
        this.dir = Objects.requireNonNull(dir, "dir");
        this.bufferBytes = bufferBytes;
        this.flushIntervalMs = flushInterval.toMillis();
        this.maxPendingBytes = bufferBytes + JobEventLogFormat.RECORD_HEADER_BYTES + JobEventLogFormat.MAX_PAYLOAD_BYTES;
        this.writerThread = Objects.requireNonNull(writerThread, "writerThread");
        this.stopWriterThread = stopWriterThread;
        this.opener = Objects.requireNonNull(opener, "opener");
        this.outOfLineThresholdBytes = outOfLineThresholdBytes;
        this.random = () -> ThreadLocalRandom.current().nextLong();
    }

    /** A writer for {@code dir} with the buffer size and flush interval of {@code job-event.store.write-buffer.*}. */
    public static JobEventWriter create(FileSystem fileSystem, FsPath dir, Configuration config) {
        return new JobEventWriter(fileSystem, dir, config.get(JobRecoveryOptions.WRITE_BUFFER_SIZE).bytes(),
                config.get(JobRecoveryOptions.WRITE_BUFFER_FLUSH_INTERVAL));
    }

    /**
     * As {@link #create(FileSystem, FsPath, Configuration)}, but the writes, closes and flush timers
     * run on {@code writerThread} instead of a thread of the writer's own: a deterministic
     * simulation of the cluster runs them on a mailbox it steps, so that no real thread decides
     * how much of the log is on disk when a JobManager dies.
     */
    public static JobEventWriter create(FileSystem fileSystem, FsPath dir, Configuration config, Mailbox writerThread) {
        return new JobEventWriter(fileSystem, dir, config.get(JobRecoveryOptions.WRITE_BUFFER_SIZE).bytes(),
                config.get(JobRecoveryOptions.WRITE_BUFFER_FLUSH_INTERVAL), writerThread,
                file -> fileSystem.create(file, WriteMode.EXCLUSIVE));
    }

    /**
     * Buffers an event for writing. Never blocks on I/O and never throws; a disabled or closed
     * writer drops the event and counts it.
     */
    public void append(JobEvent event) {
        if (disabled()) {
            droppedEvents.incrementAndGet();
            return;
        }
        CollectedDataFiles.Split split;
        byte[] record;
        try {
            split = CollectedDataFiles.externalize(event, outOfLineThresholdBytes, random);
            record = JobEventLogFormat.encodeRecord(split.event());
        } catch (RuntimeException e) {
            droppedEvents.incrementAndGet();
            disable("cannot record an event", new IOException(e.getMessage(), e));
            return;
        }
        boolean fellBehind = false;
        synchronized (lock) {
            if (closed != null || disabled()) {
                droppedEvents.incrementAndGet();
                return;
            }
            if (pending.size() + (long) record.length > maxPendingBytes) {
                fellBehind = true;
            } else {
                pending.add(record, split.blobs());
                if (intervalFlush == null) {
                    intervalFlush = writerThread.schedule(this::flushBuffered, flushIntervalMs);
                }
                if (pending.size() >= bufferBytes && !sizeFlushQueued) {
                    sizeFlushQueued = true;
                    writerThread.execute(this::flushBuffered);
                }
            }
        }
        if (fellBehind) {
            droppedEvents.incrementAndGet();
            disable("the writer fell more than " + maxPendingBytes + " bytes behind",
                    new IOException("writing to " + dir + " is too slow"));
        }
    }

    /**
     * Writes every event appended so far and forces it to disk.
     *
     * @return completes when those events are on disk; completes exceptionally with the cause if
     *     the writer is (or becomes) disabled, so they may be lost
     */
    public CompletableFuture<Void> flush() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (lock) {
            if (closed != null) {
                return closed;
            }
            writerThread.execute(() -> {
                try {
                    flushBuffered();
                } finally {
                    complete(done);
                }
            });
        }
        return done;
    }

    /**
     * Writes what is buffered, closes the file and stops the writer thread. Later appends are
     * dropped and counted. Idempotent.
     *
     * @return completes when the file is closed; exceptionally as {@link #flush()} does
     */
    public CompletableFuture<Void> closeAsync() {
        synchronized (lock) {
            if (closed != null) {
                return closed;
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            closed = done;
            writerThread.execute(() -> {
                try {
                    flushBuffered();
                    closeStream();
                } finally {
                    complete(done);
                    stopWriterThread.run();
                }
            });
            return done;
        }
    }

    /**
     * Stops without writing what is buffered (it is dropped and counted) and closes the file: for a
     * JobManager that lost its leadership, whose successor may already be reading the log.
     */
    public CompletableFuture<Void> abandon() {
        synchronized (lock) {
            if (closed == null) {
                droppedEvents.addAndGet(pending.events());
                pending.clear(0);
                cancelIntervalFlush();
            }
        }
        return closeAsync();
    }

    /** {@link #closeAsync()} and waits for it; failures were already logged. Not for the JobManager main thread. */
    @Override
    public void close() {
        closeAsync().exceptionally(e -> null).join();
    }

    /** Whether a failure stopped the recording of this job's events. */
    public boolean disabled() {
        return disabledCause.get() != null;
    }

    /** Why recording stopped, or {@code ""} while it records. */
    public String disabledCause() {
        IOException cause = disabledCause.get();
        return cause == null ? "" : String.valueOf(cause.getMessage());
    }

    /** Events that were appended but are not (and will not be) in the log; a metric. */
    public long droppedEvents() {
        return droppedEvents.get();
    }

    /** Events written and forced to disk. */
    public long writtenEvents() {
        return writtenEvents.get();
    }

    /** Bytes written and synced so far, file headers included; any thread. */
    public long writtenBytes() {
        return writtenBytes.get();
    }

    /** The file this writer writes to, or null before its first batch. */
    public FsPath file() {
        return file;
    }

    /** Writer thread: writes the pending buffer, if any, as one batch. */
    private void flushBuffered() {
        RecordBuffer batch;
        synchronized (lock) {
            cancelIntervalFlush();
            sizeFlushQueued = false;
            if (disabled() || pending.isEmpty()) {
                return;
            }
            batch = pending;
            pending = spare;
            spare = null;
        }
        try {
            writeCollectedDataFiles(batch.blobs());
            write(batch.contents());
            writtenEvents.addAndGet(batch.events());
        } catch (IOException | RuntimeException e) {
            droppedEvents.addAndGet(batch.events());
            disable("cannot write " + (writingCollected != null ? writingCollected : file != null ? file : dir),
                    e instanceof IOException io ? io : new IOException(e.toString(), e));
            closeStream();
        } finally {
            batch.clear((int) (2 * bufferBytes));
            synchronized (lock) {
                spare = batch;
            }
        }
    }

    /**
     * Writer thread: one write call of whole records (after the file header for a new file), then
     * sync. One call, so that a file system that writes each call through at once (the local one)
     * never has a write end inside a record unless it fails.
     */
    private void write(ByteBuffer records) throws IOException {
        if (out == null) {
            ByteBuffer header = openNewFile();
            ByteBuffer first = ByteBuffer.allocate(header.remaining() + records.remaining());
            first.put(header).put(records).flip();
            records = first;
        }
        out.write(records.array(), records.arrayOffset() + records.position(), records.remaining());
        out.sync();
        writtenBytes.addAndGet(records.remaining());
    }

    /** Writer thread: the files the batch's records refer to, each synced, before any of those records. */
    private void writeCollectedDataFiles(List<CollectedDataFiles.Blob> blobs) throws IOException {
        if (blobs.isEmpty()) {
            return;
        }
        if (out == null) {
            fileSystem.mkdirs(dir);
        }
        for (CollectedDataFiles.Blob blob : blobs) {
            writingCollected = dir.resolve(blob.name());
            writtenBytes.addAndGet(CollectedDataFiles.write(fileSystem, dir, opener, blob));
        }
        writingCollected = null;
    }

    /**
     * Writer thread: creates the next file; returns its header, to be written with the first
     * records. The file's name becomes durable with the first sync.
     */
    private ByteBuffer openNewFile() throws IOException {
        fileSystem.mkdirs(dir);
        int index = JobEventReader.nextFileIndex(fileSystem, dir);
        for (int attempt = 1; ; attempt++, index++) {
            FsPath candidate = dir.resolve(JobEventLogFormat.fileName(index));
            try {
                out = opener.createNew(candidate);
                file = candidate;
                break;
            } catch (FileAlreadyExistsException e) {
                // Another session took this index between listing and creating; take the next.
                if (attempt == MAX_CREATE_ATTEMPTS) {
                    throw e;
                }
            }
        }
        LOG.info("Recording job events in {}", file);
        return JobEventLogFormat.fileHeader();
    }

    private void disable(String what, IOException cause) {
        if (!disabledCause.compareAndSet(null, cause)) {
            return;
        }
        synchronized (lock) {
            droppedEvents.addAndGet(pending.events());
            pending.clear(0);
            cancelIntervalFlush();
        }
        LOG.warn("Stopped recording job events in {}: {}: {}. Batch job recovery is off for this job from here on:"
                + " it continues, but if its JobManager fails, the work done after the last recorded event runs again.",
                dir, what, cause.toString(), cause);
    }

    private void cancelIntervalFlush() {
        if (intervalFlush != null) {
            intervalFlush.cancel();
            intervalFlush = null;
        }
    }

    private void closeStream() {
        if (out == null) {
            return;
        }
        try {
            out.close();
        } catch (IOException e) {
            // Everything written was synced before; a failing close loses nothing.
            LOG.debug("cannot close job event log {}", file, e);
        }
        out = null;
    }

    private void complete(CompletableFuture<Void> done) {
        IOException cause = disabledCause.get();
        if (cause != null) {
            done.completeExceptionally(cause);
        } else {
            done.complete(null);
        }
    }

    private static ScheduledThreadPoolExecutor ownThread() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }

    private static Mailbox schedulerOf(ScheduledThreadPoolExecutor executor) {
        return new Mailbox() {
            @Override
            public void execute(Runnable action) {
                executor.execute(action);
            }

            @Override
            public Cancellable schedule(Runnable action, long delayMs) {
                ScheduledFuture<?> future = executor.schedule(action, delayMs, TimeUnit.MILLISECONDS);
                return () -> future.cancel(false);
            }

            @Override
            public long now() {
                return System.currentTimeMillis();
            }

            @Override
            public void assertRunningInMailbox() {
                if (!Thread.currentThread().getName().equals(THREAD_NAME)) {
                    throw new IllegalStateException("must run on " + THREAD_NAME + ", not "
                            + Thread.currentThread().getName());
                }
            }
        };
    }
}
