package io.duraflow.exchange;

import java.util.Arrays;
import java.util.Objects;

/**
 * What a finished partition holds, per subpartition and in total.
 *
 * @param subpartitionBytes payload bytes of each subpartition (records with their length
 *     prefixes, without frame headers): what a consumer of that subpartition will decode
 * @param subpartitionRecords records of each subpartition
 * @param dataFileBytes size of the data file, headers included: what a full transfer ships
 */
public record PartitionSummary(long[] subpartitionBytes, long[] subpartitionRecords, long dataFileBytes) {
    public PartitionSummary {
        Objects.requireNonNull(subpartitionBytes, "subpartitionBytes");
        Objects.requireNonNull(subpartitionRecords, "subpartitionRecords");
        if (subpartitionBytes.length != subpartitionRecords.length) {
            throw new IllegalArgumentException("subpartitionBytes has " + subpartitionBytes.length
                    + " entries but subpartitionRecords has " + subpartitionRecords.length);
        }
        subpartitionBytes = subpartitionBytes.clone();
        subpartitionRecords = subpartitionRecords.clone();
    }

    public int subpartitionCount() {
        return subpartitionBytes.length;
    }

    public long bytes(int subpartition) {
        return subpartitionBytes[subpartition];
    }

    public long records(int subpartition) {
        return subpartitionRecords[subpartition];
    }

    /** Payload bytes over all subpartitions. */
    public long totalBytes() {
        return Arrays.stream(subpartitionBytes).sum();
    }

    public long totalRecords() {
        return Arrays.stream(subpartitionRecords).sum();
    }

    /** A copy: the summary is immutable. */
    @Override
    public long[] subpartitionBytes() {
        return subpartitionBytes.clone();
    }

    /** A copy: the summary is immutable. */
    @Override
    public long[] subpartitionRecords() {
        return subpartitionRecords.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionSummary that
                && dataFileBytes == that.dataFileBytes
                && Arrays.equals(subpartitionBytes, that.subpartitionBytes)
                && Arrays.equals(subpartitionRecords, that.subpartitionRecords);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(subpartitionBytes) + Arrays.hashCode(subpartitionRecords))
                + Long.hashCode(dataFileBytes);
    }

    @Override
    public String toString() {
        return "PartitionSummary[subpartitionBytes=" + Arrays.toString(subpartitionBytes)
                + ", subpartitionRecords=" + Arrays.toString(subpartitionRecords)
                + ", dataFileBytes=" + dataFileBytes + "]";
    }
}
