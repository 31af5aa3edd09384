package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.types.Types;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.heap.HeapStateBackend;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KeyPrefetch} over a real heap backend (wrapped to record its prefetch calls): each key is
 * extracted once per batch, out-of-batch records still get their own key, and a failing selector
 * neither breaks the prefetch nor is swallowed.
 */
class KeyPrefetchTest {
    /** A record; the selector boxes its id anew on every call (ids > 127), so key identity tells calls apart. */
    private record Event(long id) {}

    @TempDir
    Path tempDir;
    private KeyedStateBackend<Long> heap;
    private KeyedStateBackend<Object> backend;
    /** The keys of each backend.prefetch call, copied during the call. */
    private final List<List<Object>> prefetched = new ArrayList<>();
    private int selectorCalls;
    private KeyPrefetch keyPrefetch;

    @BeforeEach
    @SuppressWarnings("unchecked")
    void setUp() throws Exception {
        heap = new HeapStateBackend().createKeyedStateBackend(new KeyedBackendParameters<>("key-prefetch", Types.LONG,
                128, new KeyGroupRange(0, 127), List.of(), tempDir.resolve("local")));
        backend = (KeyedStateBackend<Object>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {KeyedStateBackend.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prefetch")) {
                        prefetched.add(Arrays.asList(Arrays.copyOf((Object[]) args[0], (int) args[1])));
                    }
                    try {
                        return method.invoke(heap, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        keyPrefetch = new KeyPrefetch(record -> {
            selectorCalls++;
            long id = ((Event) record).id();
            if (id < 0) {
                throw new IllegalStateException("no key for " + id);
            }
            return Long.valueOf(id);
        });
    }

    @AfterEach
    void tearDown() {
        heap.dispose();
    }

    /** Protects the point of the change: one extraction per record, and the backend's key object reused. */
    @Test
    void recordsProcessedInBatchOrderHaveTheirKeyExtractedOnceAndGetTheKeyObjectTheBackendPrefetched()
            throws Exception {
        Object[] batch = {new Event(1000), new Event(2000), new Event(1000), new Event(3000)};
        keyPrefetch.prefetch(backend, batch, batch.length);

        assertThat(selectorCalls).isEqualTo(4);
        assertThat(prefetched).hasSize(1);
        List<Object> keys = prefetched.get(0);
        assertThat(keys).containsExactly(1000L, 2000L, 1000L, 3000L);
        for (int i = 0; i < batch.length; i++) {
            Object key = keyPrefetch.keyOf(batch[i]);
            assertThat(key).isSameAs(keys.get(i));
            backend.setCurrentKey(key);
            assertThat(backend.currentKey()).isSameAs(key);
        }
        assertThat(selectorCalls).isEqualTo(4);
    }

    /** Protects correctness when the operator sees a record other than the next prefetched one. */
    @Test
    void aRecordThatIsNotTheBatchsNextOneGetsItsKeyFromTheSelector() throws Exception {
        Event first = new Event(1000);
        Event second = new Event(2000);
        keyPrefetch.prefetch(backend, new Object[] {first, second}, 2);
        List<Object> keys = prefetched.get(0);

        Object outOfOrder = keyPrefetch.keyOf(second);
        assertThat(outOfOrder).isEqualTo(2000L).isNotSameAs(keys.get(1));
        assertThat(selectorCalls).isEqualTo(3);

        Object stranger = keyPrefetch.keyOf(new Event(5000));
        assertThat(stranger).isEqualTo(5000L);
        assertThat(selectorCalls).isEqualTo(4);

        assertThat(keyPrefetch.keyOf(first)).isSameAs(keys.get(0));
        assertThat(selectorCalls).isEqualTo(4);
    }

    /** Protects that a failing key selector surfaces at its record, not during the prefetch. */
    @Test
    void aSelectorFailureEndsTheBatchThereAndIsThrownByKeyOfForThatRecord() throws Exception {
        Object[] batch = {new Event(1000), new Event(2000), new Event(-1), new Event(4000)};
        keyPrefetch.prefetch(backend, batch, batch.length);

        assertThat(prefetched).hasSize(1);
        assertThat(prefetched.get(0)).containsExactly(1000L, 2000L);
        assertThat(keyPrefetch.keyOf(batch[0])).isSameAs(prefetched.get(0).get(0));
        assertThat(keyPrefetch.keyOf(batch[1])).isSameAs(prefetched.get(0).get(1));
        assertThatThrownBy(() -> keyPrefetch.keyOf(batch[2]))
                .isInstanceOf(IllegalStateException.class).hasMessage("no key for -1");
        int calls = selectorCalls;
        assertThat(keyPrefetch.keyOf(batch[3])).isEqualTo(4000L);
        assertThat(selectorCalls).isEqualTo(calls + 1);
    }

    /** Protects against a stale key: a new prefetch forgets the records the last batch did not use. */
    @Test
    void aNewPrefetchDropsTheRemainingRecordsOfThePreviousBatch() throws Exception {
        Event[] old = {new Event(1000), new Event(2000), new Event(3000)};
        keyPrefetch.prefetch(backend, old, old.length);
        assertThat(keyPrefetch.keyOf(old[0])).isSameAs(prefetched.get(0).get(0));

        Event fresh = new Event(4000);
        keyPrefetch.prefetch(backend, new Object[] {fresh}, 1);
        int calls = selectorCalls;
        Object key = keyPrefetch.keyOf(old[1]);
        assertThat(key).isEqualTo(2000L).isNotSameAs(prefetched.get(0).get(1));
        assertThat(selectorCalls).isEqualTo(calls + 1);

        assertThat(keyPrefetch.keyOf(fresh)).isSameAs(prefetched.get(1).get(0));
        assertThat(keyPrefetch.keyOf(old[2])).isEqualTo(3000L).isNotSameAs(prefetched.get(0).get(2));
        assertThat(selectorCalls).isEqualTo(calls + 2);
    }
}
