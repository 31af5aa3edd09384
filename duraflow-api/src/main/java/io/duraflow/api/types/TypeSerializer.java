package io.duraflow.api.types;

/**
 * Writes and reads values of one type. Records cross processes and land on disk only through
 * serializers, never through Java serialization.
 *
 * <p>{@link #description()} names the format (for example {@code tuple2(string,long)}); it is
 * part of the plan fingerprint, so a JobManager and a TaskManager that would read each other's
 * bytes differently refuse to run the job together.
 *
 * <p>{@link #read} returns a value that later reads do not change (a new object, or an immutable
 * one): the runtime holds several read values at once, for example a streaming task reads a few
 * records of a buffer ahead of processing them, and a spilled join or restored state keeps them.
 */
public interface TypeSerializer<T> {
    void write(T value, DataWriter out);

    T read(DataReader in);

    String description();
}
