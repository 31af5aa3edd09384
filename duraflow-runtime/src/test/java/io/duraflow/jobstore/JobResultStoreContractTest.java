package io.duraflow.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

/**
 * What every {@link JobResultStore} must do. Subclasses say how to create a store; each test
 * gets a fresh, empty one.
 */
abstract class JobResultStoreContractTest {
    /** Starts one hour after the sample jobs ended. */
    protected final ManualClock clock = new ManualClock(TestEntries.ENDED_AT_MS + Duration.ofHours(1).toMillis());

    /** A new, empty store; {@code cleanTtlOrNull} null keeps clean entries forever. */
    protected abstract JobResultStore createStore(boolean deleteOnCommit, Duration cleanTtlOrNull, Clock clock)
            throws Exception;

    protected JobResultStore createStore() throws Exception {
        return createStore(false, null, clock);
    }

    @Test
    void duplicateDirtyResultIsRejected() throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.finished("j1"));

        assertThatThrownBy(() -> store.createDirtyResult(TestEntries.everyField("j1")))
                .isInstanceOfSatisfying(JobResultEntryExistsException.class, e -> {
                    assertThat(e.jobId()).isEqualTo("j1");
                    assertThat(e.isClean()).isFalse();
                })
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job j1 already has a dirty result");
        assertThat(store.getResult("j1")).contains(TestEntries.finished("j1"));
    }

    @Test
    void countsDirtyAndCleanEntries() throws Exception {
        JobResultStore store = createStore();
        assertThat(store.countEntries()).isEqualTo(new JobResultStore.EntryCounts(0, 0));
        store.createDirtyResult(TestEntries.finished("j1"));
        store.createDirtyResult(TestEntries.finished("j2"));
        store.createDirtyResult(TestEntries.finished("j3"));
        store.markResultAsClean("j2");

        assertThat(store.countEntries()).isEqualTo(new JobResultStore.EntryCounts(2, 1));
    }

    @Test
    void dirtyResultAfterCleanIsRejected() throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.finished("j1"));
        store.markResultAsClean("j1");

        assertThatThrownBy(() -> store.createDirtyResult(TestEntries.finished("j1")))
                .isInstanceOfSatisfying(JobResultEntryExistsException.class, e -> assertThat(e.isClean()).isTrue())
                .hasMessageContaining("job j1 already has a clean result");
        assertThat(store.hasDirtyJobResultEntry("j1")).isFalse();
    }

    @Test
    void markingCleanTwiceIsANoOp() throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.finished("j1"));
        store.markResultAsClean("j1");

        store.markResultAsClean("j1");

        assertThat(store.hasCleanJobResultEntry("j1")).isTrue();
        assertThat(store.getResult("j1")).contains(TestEntries.finished("j1"));
    }

    @Test
    void markingAMissingEntryCleanFails() throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.finished("other"));

        assertThatThrownBy(() -> store.markResultAsClean("j1"))
                .isInstanceOf(NoSuchElementException.class)
                .hasMessageContaining("job j1 has no result");
        assertThat(store.hasJobResultEntry("j1")).isFalse();
    }

    @Test
    void absentEntry() throws Exception {
        JobResultStore store = createStore();

        assertThat(store.hasJobResultEntry("j1")).isFalse();
        assertThat(store.hasDirtyJobResultEntry("j1")).isFalse();
        assertThat(store.hasCleanJobResultEntry("j1")).isFalse();
        assertThat(store.getResult("j1")).isEmpty();
        assertThat(store.getDirtyResults()).isEmpty();
    }

    @Test
    void dirtyEntry() throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.finished("j1"));

        assertThat(store.hasJobResultEntry("j1")).isTrue();
        assertThat(store.hasDirtyJobResultEntry("j1")).isTrue();
        assertThat(store.hasCleanJobResultEntry("j1")).isFalse();
        assertThat(store.getResult("j1")).contains(TestEntries.finished("j1"));
        assertThat(store.getDirtyResults()).containsExactly(TestEntries.finished("j1"));
    }

    @Test
    void cleanEntryStaysReadable() throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.finished("j1"));
        store.markResultAsClean("j1");

        assertThat(store.hasJobResultEntry("j1")).isTrue();
        assertThat(store.hasDirtyJobResultEntry("j1")).isFalse();
        assertThat(store.hasCleanJobResultEntry("j1")).isTrue();
        assertThat(store.getResult("j1")).contains(TestEntries.finished("j1"));
    }

    @Test
    void dirtyResultsExcludeCleanOnesAndAreSortedByJobId() throws Exception {
        JobResultStore store = createStore();
        for (String jobId : new String[] {"j3", "j1", "j4", "j2"}) {
            store.createDirtyResult(TestEntries.finished(jobId));
        }
        store.markResultAsClean("j2");
        store.markResultAsClean("j4");

        assertThat(store.getDirtyResults()).extracting(JobResultEntry::jobId).containsExactly("j1", "j3");
    }

    @Test
    void roundTripPreservesEveryField() throws Exception {
        JobResultStore store = createStore();
        JobResultEntry entry = TestEntries.everyField("j-1.x_y");
        store.createDirtyResult(entry);

        JobResultEntry dirty = store.getResult("j-1.x_y").orElseThrow();
        store.markResultAsClean("j-1.x_y");
        JobResultEntry clean = store.getResult("j-1.x_y").orElseThrow();

        assertThat(dirty).isEqualTo(entry).hasSameHashCodeAs(entry);
        assertThat(clean).isEqualTo(entry);
        assertThat(clean.collected().get(2).data()).isEqualTo(entry.collected().get(2).data()).hasSize(256);
        assertThat(clean.collected().get(1).data()).isEmpty();
        assertThat(clean.params()).containsEntry("", "empty key")
                .containsEntry("greeting", "gr\u00fc\u00dfe \u65e5\u672c \ud83d\ude80\nnew line");
        assertThat(clean.counters()).containsEntry("records", Long.MAX_VALUE).containsEntry("delta", Long.MIN_VALUE);
    }

    @Test
    void cleanResultsExpireOnceTheirJobEndedLongerAgoThanTheTtl() throws Exception {
        JobResultStore store = createStore(false, Duration.ofHours(2), clock);
        store.createDirtyResult(TestEntries.ended("old", TestEntries.ENDED_AT_MS));
        store.createDirtyResult(TestEntries.ended("new", TestEntries.ENDED_AT_MS + Duration.ofHours(1).toMillis()));
        store.createDirtyResult(TestEntries.ended("dirty", TestEntries.ENDED_AT_MS));
        store.markResultAsClean("old");
        store.markResultAsClean("new");

        assertThat(store.expireCleanResults()).isEmpty();

        clock.setMillis(TestEntries.ENDED_AT_MS + Duration.ofHours(2).toMillis());
        assertThat(store.expireCleanResults()).as("exactly the TTL old is not older than it").isEmpty();

        clock.advance(Duration.ofMillis(1));
        assertThat(store.expireCleanResults()).hasSize(1);
        assertThat(store.hasJobResultEntry("old")).isFalse();
        assertThat(store.getResult("old")).isEmpty();
        assertThat(store.hasCleanJobResultEntry("new")).isTrue();

        clock.advance(Duration.ofDays(365));
        assertThat(store.expireCleanResults()).hasSize(1);
        assertThat(store.hasJobResultEntry("new")).isFalse();
        assertThat(store.hasDirtyJobResultEntry("dirty")).as("dirty entries never expire").isTrue();
        assertThat(store.expireCleanResults()).isEmpty();
    }

    @Test
    void withoutTtlCleanResultsAreKept() throws Exception {
        JobResultStore store = createStore();
        store.createDirtyResult(TestEntries.ended("j1", 0));
        store.markResultAsClean("j1");
        clock.advance(Duration.ofDays(3650));

        assertThat(store.expireCleanResults()).isEmpty();
        assertThat(store.hasCleanJobResultEntry("j1")).isTrue();
    }

    @Test
    void deleteOnCommitForgetsTheResult() throws Exception {
        JobResultStore store = createStore(true, null, clock);
        store.createDirtyResult(TestEntries.finished("j1"));

        store.markResultAsClean("j1");

        assertThat(store.hasJobResultEntry("j1")).isFalse();
        assertThat(store.getResult("j1")).isEmpty();
        assertThat(store.getDirtyResults()).isEmpty();
        assertThatThrownBy(() -> store.markResultAsClean("j1")).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void invalidJobIdsAreRejected() throws Exception {
        JobResultStore store = createStore();

        for (String jobId : new String[] {"../etc", "a/b", ".hidden", "", "x".repeat(65)}) {
            assertThatThrownBy(() -> store.getResult(jobId)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("invalid job id");
            assertThatThrownBy(() -> store.markResultAsClean(jobId)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.hasJobResultEntry(jobId)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
