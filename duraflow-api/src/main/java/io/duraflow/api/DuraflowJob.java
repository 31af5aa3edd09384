package io.duraflow.api;

/**
 * A job: a class with a public no-argument constructor that builds a plan from parameters.
 * The client, the JobManager and every TaskManager call {@link #build} with the same parameters
 * and must get the same plan (checked by fingerprint), so build must be deterministic and must
 * not read or write external state.
 */
public interface DuraflowJob {
    void build(JobBuilder job, JobParameters params);

    /** One line for {@code duraflow run --help} listings. */
    default String description() {
        return getClass().getSimpleName();
    }
}
