package io.duraflow.jobstore;

import java.util.Arrays;
import java.util.Objects;

/**
 * The records one subtask of a collect sink sent back to the client, in the encoding the plan's
 * type for that sink defines (each record: varint length, then its bytes).
 *
 * <p>{@code data} is copied in and out, so an instance is immutable; {@link #equals} and
 * {@link #hashCode} compare it by content.
 *
 * @param name the collect sink's name
 * @param subtask index of the subtask that collected the data
 * @param records number of records in {@code data}
 */
public record CollectedData(String name, int subtask, long records, byte[] data) {
    public CollectedData {
        Objects.requireNonNull(name, "name");
        data = Objects.requireNonNull(data, "data").clone();
        if (subtask < 0 || records < 0) {
            throw new IllegalArgumentException("collected data '" + name + "': subtask " + subtask
                    + " and records " + records + " must not be negative");
        }
    }

    /** A copy of the collected bytes. */
    @Override
    public byte[] data() {
        return data.clone();
    }

    /** Number of bytes in {@link #data()}, without copying them. */
    public int sizeBytes() {
        return data.length;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CollectedData that && subtask == that.subtask && records == that.records
                && name.equals(that.name) && Arrays.equals(data, that.data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, subtask, records) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "CollectedData[name=" + name + ", subtask=" + subtask + ", records=" + records
                + ", data=" + data.length + " bytes]";
    }
}
