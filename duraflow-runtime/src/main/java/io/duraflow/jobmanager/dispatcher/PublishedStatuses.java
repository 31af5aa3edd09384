package io.duraflow.jobmanager.dispatcher;

import io.duraflow.rpc.proto.JobStatus;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The statuses of running jobs as the main thread last built them, for status queries that need
 * not wait for the main thread (the REST job detail and {@code duraflow status}): a job with
 * hundreds of subtasks keeps the main thread busy with their reports, and a query queued behind
 * them waited tens of milliseconds.
 *
 * <p>Rules:
 * <ol>
 *   <li>A published status is served only while what it shows besides rates and counters is
 *       current: the job's change count ({@code JobMaster#statusChanges}: execution states,
 *       attempts, places and the job's state) is what it was when the status was built. Any such
 *       change sends the next query to the main thread, so a client never sees a state older than
 *       its own last action or the last transition.</li>
 *   <li>Rates and counters may be up to {@link #MAX_AGE_NANOS} old: a status older than {@link
 *       #REFRESH_AFTER_NANOS} is still served, and the main thread is asked (once at a time) to
 *       build a new one; one older than {@link #MAX_AGE_NANOS} is not served. The event log's
 *       figures (events written and dropped, why it stopped) count as such figures.</li>
 *   <li>Only a leader that is ready publishes; it forgets every status when it stops leading
 *       ({@link #close}), after which nothing is served.</li>
 * </ol>
 *
 * <p>Thread-safe: the main thread publishes, query threads read.
 */
final class PublishedStatuses {
    /** Rates and counters of a served status are at most this old (TaskManagers report about once a second). */
    static final long MAX_AGE_NANOS = 1_000_000_000L;
    /** A served status older than this asks the main thread for a new one. */
    static final long REFRESH_AFTER_NANOS = 200_000_000L;

    private record Entry(JobStatus status, long changes, long builtAtNanos, LongSupplier currentChanges,
            AtomicBoolean refreshing) {}

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;
    /** Builds and publishes a job's status on the main thread. */
    private final Consumer<String> refresh;
    private volatile boolean open = true;

    PublishedStatuses(LongSupplier nanoClock, Consumer<String> refresh) {
        this.nanoClock = nanoClock;
        this.refresh = refresh;
    }

    /**
     * Main thread: {@code status} of a running job was just built while its change count was
     * {@code changes} ({@code currentChanges} reads the count now).
     */
    void publish(String jobId, JobStatus status, long changes, LongSupplier currentChanges) {
        if (open) {
            entries.put(jobId, new Entry(status, changes, nanoClock.getAsLong(), currentChanges, new AtomicBoolean()));
        }
    }

    /** Main thread: the job is no longer running here (ended, or left this leader). */
    void forget(String jobId) {
        entries.remove(jobId);
    }

    /** Any thread: the published status of a running job if rules 1-3 allow serving it, else null. */
    JobStatus current(String jobId) {
        Entry entry = entries.get(jobId);
        if (entry == null || !open || entry.currentChanges.getAsLong() != entry.changes) {
            return null;
        }
        long age = nanoClock.getAsLong() - entry.builtAtNanos;
        if (age > MAX_AGE_NANOS) {
            return null;
        }
        if (age > REFRESH_AFTER_NANOS && entry.refreshing.compareAndSet(false, true)) {
            refresh.accept(jobId);
        }
        return entry.status;
    }

    /** Main thread: this JobManager stops leading; nothing is served any more. */
    void close() {
        open = false;
        entries.clear();
    }
}
