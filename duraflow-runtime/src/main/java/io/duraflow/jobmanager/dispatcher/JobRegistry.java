package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.jobstore.SubmittedJob;
import io.duraflow.rpc.proto.JobStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one leadership's dispatcher remembers of its jobs; main thread only.
 *
 * <p>A job is in {@link #jobs} from its creation until its result is durable; then it is
 * evicted (with its graph, executions and collected records) and only its result is kept: the
 * newest results whole while their collected records together stay under
 * {@code maxWholeResultBytes} (and at most {@link #MAX_WHOLE_RESULTS}), older ones as summaries without collected records (at most
 * {@code maxSummaries}), and older still only in the job result store, which the dispatcher reads
 * when asked. So the leader's memory stays flat however many jobs run (eight jobs with
 * 2.5 M collected records each used to exhaust the heap).
 */
public final class JobRegistry {
    /** Jobs without a durable result, in submission order. */
    private final Map<String, JobMaster> jobs = new LinkedHashMap<>();
    /** What each job in {@link #jobs} was submitted as (by a client, or read from the job graph store). */
    private final Map<String, SubmittedJob> submissions = new HashMap<>();
    /** Ids being submitted right now (between the check and the stored job graph). */
    private final Set<String> pendingSubmissions = new HashSet<>();
    /** The event log writers of jobs in {@link #jobs}. */
    private final Map<String, JobEventWriter> eventWriters = new HashMap<>();
    /** Newest results with their collected records, oldest first. */
    private final LinkedHashMap<String, Whole> wholeResults = new LinkedHashMap<>();
    /** Older results without collected records, oldest first. */
    private final LinkedHashMap<String, JobResultEntry> summaries = new LinkedHashMap<>();
    /** However small, at most this many results are kept whole; the rest become summaries. */
    static final int MAX_WHOLE_RESULTS = 100;
    private final long maxWholeResultBytes;
    private final int maxSummaries;
    private long wholeResultBytes;
    /** Results made durable under this leadership, by outcome (for the metrics). */
    private final Map<io.duraflow.jobstore.JobOutcome, Long> resultsStored =
            new java.util.EnumMap<>(io.duraflow.jobstore.JobOutcome.class);

    /**
     * A result kept whole, with the last status its job master reported when that is this run's
     * (task states, TaskManagers, restored tasks), else null.
     */
    private record Whole(JobResultEntry entry, JobStatus finalStatus) {}

    JobRegistry(long maxWholeResultBytes, int maxSummaries) {
        this.maxWholeResultBytes = maxWholeResultBytes;
        this.maxSummaries = maxSummaries;
    }

    // ------------------------------------------------------------------ running jobs

    JobMaster job(String jobId) {
        return jobs.get(jobId);
    }

    boolean isKnown(String jobId) {
        return jobs.containsKey(jobId) || pendingSubmissions.contains(jobId);
    }

    /** The submission of a job in {@link #jobs}, or null. */
    SubmittedJob submission(String jobId) {
        return submissions.get(jobId);
    }

    void add(JobMaster job, JobEventWriter writer, SubmittedJob submitted) {
        if (!submitted.jobId().equals(job.jobId())) {
            throw new IllegalArgumentException("job " + job.jobId() + " added with the submission of job "
                    + submitted.jobId());
        }
        jobs.put(job.jobId(), job);
        submissions.put(job.jobId(), submitted);
        if (writer != null) {
            eventWriters.put(job.jobId(), writer);
        } else {
            eventWriters.remove(job.jobId());
        }
    }

    public Collection<JobMaster> jobs() {
        return new ArrayList<>(jobs.values());
    }

    public JobEventWriter eventWriter(String jobId) {
        return eventWriters.get(jobId);
    }

    /** Removes and returns the job's event writer, or null. */
    JobEventWriter takeEventWriter(String jobId) {
        return eventWriters.remove(jobId);
    }

    Collection<JobEventWriter> takeAllEventWriters() {
        List<JobEventWriter> all = new ArrayList<>(eventWriters.values());
        eventWriters.clear();
        return all;
    }

    boolean startSubmission(String jobId) {
        return pendingSubmissions.add(jobId);
    }

    void endSubmission(String jobId) {
        pendingSubmissions.remove(jobId);
    }

    boolean isBeingSubmitted(String jobId) {
        return pendingSubmissions.contains(jobId);
    }

    // ------------------------------------------------------------------ results

    /** The job's result is durable: the job master goes, the result stays (see the class comment). */
    void resultStored(JobResultEntry entry, JobStatus finalStatus) {
        resultsStored.merge(entry.state(), 1L, Long::sum);
        jobs.remove(entry.jobId());
        submissions.remove(entry.jobId());
        forget(entry.jobId());
        wholeResults.put(entry.jobId(), new Whole(entry, finalStatus));
        wholeResultBytes += collectedBytes(entry);
        trim();
    }

    /** Results made durable under this leadership so far, by outcome. */
    public Map<io.duraflow.jobstore.JobOutcome, Long> resultsStored() {
        return Map.copyOf(resultsStored);
    }

    /** A result read from the store or left by an earlier leader, remembered as a summary. */
    void rememberSummary(JobResultEntry entry) {
        if (wholeResults.containsKey(entry.jobId())) {
            return;
        }
        summaries.remove(entry.jobId());
        summaries.put(entry.jobId(), withoutCollected(entry));
        trimSummaries();
    }

    /** The result, whole if it is among the newest, else a summary without collected records. */
    Optional<JobResultEntry> result(String jobId) {
        Whole whole = wholeResults.get(jobId);
        return whole != null ? Optional.of(whole.entry()) : Optional.ofNullable(summaries.get(jobId));
    }

    boolean hasWholeResult(String jobId) {
        return wholeResults.containsKey(jobId);
    }

    /** The status the job master reported last, while its result is among the newest; else null. */
    JobStatus finalStatus(String jobId) {
        Whole whole = wholeResults.get(jobId);
        return whole == null ? null : whole.finalStatus();
    }

    /** Results in the order they ended, oldest first: summaries, then whole ones. */
    List<JobResultEntry> results() {
        List<JobResultEntry> all = new ArrayList<>(summaries.values());
        wholeResults.values().forEach(whole -> all.add(whole.entry()));
        return all;
    }

    /** The store deleted these results (their time-to-live passed): memory forgets them too. */
    void forget(String jobId) {
        Whole whole = wholeResults.remove(jobId);
        if (whole != null) {
            wholeResultBytes -= collectedBytes(whole.entry());
        }
        summaries.remove(jobId);
    }

    private void trim() {
        Iterator<Whole> oldest = wholeResults.values().iterator();
        // The newest result always stays whole: its client is about to ask for it.
        while ((wholeResultBytes > maxWholeResultBytes || wholeResults.size() > MAX_WHOLE_RESULTS)
                && wholeResults.size() > 1) {
            JobResultEntry entry = oldest.next().entry();
            oldest.remove();
            wholeResultBytes -= collectedBytes(entry);
            summaries.put(entry.jobId(), withoutCollected(entry));
        }
        trimSummaries();
    }

    private void trimSummaries() {
        Iterator<String> oldest = summaries.keySet().iterator();
        while (summaries.size() > maxSummaries) {
            oldest.next();
            oldest.remove();
        }
    }

    private static long collectedBytes(JobResultEntry entry) {
        long bytes = 0;
        for (var data : entry.collected()) {
            bytes += data.sizeBytes();
        }
        return bytes;
    }

    private static JobResultEntry withoutCollected(JobResultEntry e) {
        return e.collected().isEmpty() ? e : new JobResultEntry(e.jobId(), e.jobName(), e.jobClass(), e.state(),
                e.submittedAtMs(), e.endedAtMs(), e.failure(), e.restarts(), e.params(), e.counters(), e.vertices(),
                List.of());
    }
}
