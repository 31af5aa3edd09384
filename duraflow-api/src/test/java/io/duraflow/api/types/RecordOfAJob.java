package io.duraflow.api.types;

/**
 * A record that {@link TypesTest} defines again in a class loader of its own, as a job's jar
 * brings its records: top-level, so that the copy needs no declaring class from that loader.
 */
public record RecordOfAJob(long x, String label) {}
