package io.duraflow.jobmanager.jobmaster.scheduling;

/**
 * Decides a vertex's parallelism from the bytes its inputs produced, and which contiguous
 * range of subpartitions (key groups) each task reads. Pure functions.
 */
public final class AdaptiveParallelism {
    private AdaptiveParallelism() {}

    /**
     * ceil(total / bytesPerTask), clamped to [min, max] and to the number of subpartitions.
     */
    public static int decide(long totalBytes, long bytesPerTask, int min, int max, int subpartitions) {
        long wanted = bytesPerTask <= 0 ? max
                : totalBytes / bytesPerTask + (totalBytes % bytesPerTask == 0 ? 0 : 1);
        int upper = Math.max(1, Math.min(max, subpartitions));
        int lower = Math.max(1, Math.min(min, upper));
        return (int) Math.max(lower, Math.min(upper, wanted));
    }

    /**
     * Splits subpartitions 0..n-1 into {@code parallelism} contiguous, non-empty ranges with
     * about equal bytes. Returns n+1... as boundaries: task i reads [bounds[i], bounds[i+1]).
     */
    public static int[] ranges(long[] bytesPerSubpartition, int parallelism) {
        int n = bytesPerSubpartition.length;
        if (parallelism < 1 || parallelism > n) {
            throw new IllegalArgumentException("parallelism " + parallelism + " does not fit " + n + " subpartitions");
        }
        long total = 0;
        for (long bytes : bytesPerSubpartition) {
            total += bytes;
        }
        int[] bounds = new int[parallelism + 1];
        bounds[parallelism] = n;
        if (total == 0) {
            for (int i = 1; i < parallelism; i++) {
                bounds[i] = (int) ((long) n * i / parallelism);
            }
            return bounds;
        }
        long accumulated = 0;
        int task = 1;
        for (int sub = 0; sub < n && task < parallelism; sub++) {
            accumulated += bytesPerSubpartition[sub];
            int remainingSubpartitions = n - (sub + 1);
            int remainingTasks = parallelism - task;
            boolean reachedShare = accumulated * parallelism >= total * task;
            if ((reachedShare && remainingSubpartitions >= remainingTasks) || remainingSubpartitions == remainingTasks) {
                bounds[task++] = sub + 1;
            }
        }
        return bounds;
    }

    /** Even ranges, for vertices whose parallelism was fixed by the user. */
    public static int[] evenRanges(int subpartitions, int parallelism) {
        return ranges(new long[subpartitions], parallelism);
    }
}
