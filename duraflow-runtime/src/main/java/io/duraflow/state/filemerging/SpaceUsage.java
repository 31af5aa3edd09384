package io.duraflow.state.filemerging;

/**
 * The merged checkpoint files a {@link FileMergingSnapshotManager} knows (or the sum over a job's
 * managers on a TaskManager), for the metrics.
 *
 * @param physicalBytes bytes of the files
 * @param liveBytes bytes of their live segments
 * @param files files known (created or restored)
 * @param openFiles files that still take segments
 * @param pooledFiles files the pools keep for further segments (at most {@code max-file-pool-size} a pool)
 * @param unpooledFiles files opened outside a pool since the run started, because the pool was at its
 *     bound and every file in it was held by another writer (each takes one segment)
 */
public record SpaceUsage(long physicalBytes, long liveBytes, int files, int openFiles, int pooledFiles,
        long unpooledFiles) {
    public SpaceUsage(long physicalBytes, long liveBytes, int files, int openFiles) {
        this(physicalBytes, liveBytes, files, openFiles, 0, 0);
    }

    public double amplification() {
        return liveBytes == 0 ? (physicalBytes == 0 ? 1.0 : Double.POSITIVE_INFINITY)
                : (double) physicalBytes / liveBytes;
    }

    /** The sum of this and {@code other} (a job's managers on one TaskManager). */
    public SpaceUsage plus(SpaceUsage other) {
        return new SpaceUsage(physicalBytes + other.physicalBytes, liveBytes + other.liveBytes, files + other.files,
                openFiles + other.openFiles, pooledFiles + other.pooledFiles, unpooledFiles + other.unpooledFiles);
    }
}
