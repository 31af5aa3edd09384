package io.duraflow.bench;

/**
 * How many records the next run of one engine (and file system) gets so that it takes about
 * {@code targetSeconds}: the records/s of the latest run of it times the target, rounded to 100,000.
 * Throughput on this shared machine changes several-fold with other load (a fixed count took 5 s on
 * a quiet machine and 40 s under load), so each run is sized from the one before; a fixed count
 * ({@code fixedRecords} > 0) turns this off.
 */
public final class RunLength {
    private static final long ROUND = 100_000;
    private static final long MIN_RECORDS = 200_000;

    private final double targetSeconds;
    private final long fixedRecords;
    private double recordsPerSecond;

    /**
     * @param firstRecordsPerSecond the rate to size the first run from (a warm-up's)
     */
    public RunLength(double targetSeconds, long fixedRecords, double firstRecordsPerSecond) {
        this.targetSeconds = targetSeconds;
        this.fixedRecords = fixedRecords;
        this.recordsPerSecond = firstRecordsPerSecond;
    }

    /** Records for the next run. */
    public long next() {
        if (fixedRecords > 0) {
            return fixedRecords;
        }
        long records = Math.round(recordsPerSecond * targetSeconds / ROUND) * ROUND;
        return Math.max(MIN_RECORDS, records);
    }

    /** The run just measured. */
    public void observed(double runRecordsPerSecond) {
        if (runRecordsPerSecond > 0 && Double.isFinite(runRecordsPerSecond)) {
            recordsPerSecond = runRecordsPerSecond;
        }
    }
}
