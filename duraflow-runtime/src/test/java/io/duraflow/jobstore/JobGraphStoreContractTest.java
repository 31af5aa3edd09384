package io.duraflow.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What every {@link JobGraphStore} must do; each test gets a fresh, empty store. */
abstract class JobGraphStoreContractTest {
    protected abstract JobGraphStore createStore() throws Exception;

    @Test
    void roundTripPreservesEveryField() throws Exception {
        JobGraphStore store = createStore();
        SubmittedJob job = TestEntries.submitted("j1");

        store.put(job);

        assertThat(store.get("j1")).contains(job);
        assertThat(store.jobIds()).containsExactly("j1");
    }

    @Test
    void whatAJobRestoresIsStoredWithIt() throws Exception {
        JobGraphStore store = createStore();
        SubmittedJob job = new SubmittedJob("j1", "com.example.Sum", Map.of(), Map.of(), 3, 42,
                new RestoreSettings("/savepoints/savepoint-j0-7", RestoreSettings.Mode.CLAIM, true));

        store.put(job);

        assertThat(store.get("j1")).contains(job);
    }

    @Test
    void absentJob() throws Exception {
        JobGraphStore store = createStore();

        assertThat(store.get("j1")).isEmpty();
        assertThat(store.jobIds()).isEmpty();
    }

    @Test
    void putReplacesAJobWithTheSameId() throws Exception {
        JobGraphStore store = createStore();
        store.put(TestEntries.submitted("j1"));
        SubmittedJob replacement = new SubmittedJob("j1", "com.example.Other", Map.of(), Map.of(), 0, 42);

        store.put(replacement);

        assertThat(store.get("j1")).contains(replacement);
        assertThat(store.jobIds()).containsExactly("j1");
    }

    @Test
    void removeIsIdempotent() throws Exception {
        JobGraphStore store = createStore();
        store.put(TestEntries.submitted("j1"));
        store.put(TestEntries.submitted("j2"));

        store.remove("j1");
        store.remove("j1");
        store.remove("never-stored");

        assertThat(store.get("j1")).isEmpty();
        assertThat(store.jobIds()).containsExactly("j2");
    }

    @Test
    void jobIdsAreSorted() throws Exception {
        JobGraphStore store = createStore();
        for (String jobId : new String[] {"b", "a.2", "c", "a"}) {
            store.put(TestEntries.submitted(jobId));
        }

        assertThat(store.jobIds()).containsExactly("a", "a.2", "b", "c");
    }

    @Test
    void invalidJobIdsAreRejected() throws Exception {
        JobGraphStore store = createStore();

        assertThatThrownBy(() -> store.get("../j1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.remove("a/b")).isInstanceOf(IllegalArgumentException.class);
    }
}
