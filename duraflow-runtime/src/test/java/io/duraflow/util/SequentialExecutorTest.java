package io.duraflow.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SequentialExecutorTest {
    @Test
    void tasksRunOneAtATimeInOrderOnAPoolOfSeveralThreads() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            SequentialExecutor sequential = new SequentialExecutor(pool);
            List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger running = new AtomicInteger();
            AtomicInteger mostAtOnce = new AtomicInteger();
            for (int i = 0; i < 2_000; i++) {
                int task = i;
                sequential.execute(() -> {
                    mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                    order.add(task);
                    running.decrementAndGet();
                });
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> order.size() == 2_000);
            assertThat(mostAtOnce.get()).isEqualTo(1);
            for (int i = 0; i < 2_000; i++) {
                assertThat(order.get(i)).isEqualTo(i);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFailingTaskDoesNotStopTheOnesAfterIt() {
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        SequentialExecutor sequential = new SequentialExecutor(Runnable::run);
        sequential.execute(() -> {
            throw new IllegalStateException("injected");
        });
        sequential.execute(() -> ran.add("after"));
        assertThat(ran).containsExactly("after");
    }
}
