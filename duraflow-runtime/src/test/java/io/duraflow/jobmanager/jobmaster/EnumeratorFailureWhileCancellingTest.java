package io.duraflow.jobmanager.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.duraflow.api.JobBuilder;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.jobmaster.failover.StreamingRestart;
import io.duraflow.plan.JobGraph;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A split enumerator whose periodic work fails while a streaming job is being cancelled: the
 * restart it would cause is not made (the user's cancellation decides how the job ends), but the
 * failure is logged as a warning naming the job and the cause instead of vanishing.
 */
class EnumeratorFailureWhileCancellingTest {
    private static JobGraph graph() {
        JobBuilder job = new JobBuilder("failing-enumerator");
        job.fromSource("numbers", TestSources.source(TestSources.Behaviour.FAIL_FIRST_ASYNC)).parallelism(2)
                .collect("all");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    @Test
    void theFailureIsLoggedAsAWarningAndTheJobEndsCancelled() {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(StreamingRestart.class);
        Level level = logger.getLevel();
        log.start();
        logger.addAppender(log);
        logger.setLevel(Level.INFO);
        try {
            FakeCluster cluster = new FakeCluster(graph(), FakeCluster.SETTINGS, FakeSlotPool.of(2, 4));
            cluster.prepare();
            // Started before the enumerator's work ran: the job deploys, then is cancelled, then the work fails.
            cluster.job.start();
            assertThat(cluster.live()).isNotEmpty();
            cluster.job.cancel();
            assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELLING);

            cluster.scheduler.runDue();

            assertThat(log.list).filteredOn(e -> e.getLevel() == Level.WARN)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .anySatisfy(line -> assertThat(line).contains(FakeCluster.JOB_ID)
                            .contains("topic 'missing' not found").contains("CANCELLING"));
            cluster.live().forEach(cluster::canceled);
            assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELED);
            assertThat(cluster.job.restarts()).isZero();
        } finally {
            logger.detachAppender(log);
            logger.setLevel(level);
        }
    }
}
