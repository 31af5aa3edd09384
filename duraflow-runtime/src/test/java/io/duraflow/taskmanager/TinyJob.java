package io.duraflow.taskmanager;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.SequenceSource;

/** The smallest job with a plan: numbers, collected. */
public final class TinyJob implements DuraflowJob {
    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.fromSource("Numbers", new SequenceSource(0, 10, 1)).collect("numbers");
    }
}
