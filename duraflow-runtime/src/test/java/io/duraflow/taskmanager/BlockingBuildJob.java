package io.duraflow.taskmanager;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import java.util.concurrent.CountDownLatch;

/** A job whose build() blocks until interrupted, as one that waits on an unreachable service would. */
public final class BlockingBuildJob implements DuraflowJob {
    static final CountDownLatch BUILDING = new CountDownLatch(1);
    static final CountDownLatch INTERRUPTED = new CountDownLatch(1);

    @Override
    public void build(JobBuilder job, JobParameters params) {
        BUILDING.countDown();
        try {
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            INTERRUPTED.countDown();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building", e);
        }
    }
}
