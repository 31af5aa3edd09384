package com.example.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.test.DuraflowCluster;
import io.duraflow.test.JobOutcome;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The job on a cluster inside this test: every order counted once, every total right. */
class OrderTotalsTest {
    @RegisterExtension
    static final DuraflowCluster cluster = DuraflowCluster.builder().taskManagers(2).slots(2).build();

    @TempDir
    Path dir;

    /** Streaming with a checkpoint every 200 ms: the file sink makes a checkpoint's files visible when it completes. */
    private Map<String, String> streaming() {
        return Map.of("execution.runtime-mode", "streaming", "execution.checkpointing.interval", "200ms",
                "execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString());
    }

    @Test
    void everyOrderUpdatesItsCustomersTotalExactlyOnce() throws Exception {
        long orders = 20_000;
        long customers = 50;
        Path output = dir.resolve("totals");

        JobOutcome outcome = cluster.run(OrderTotals.class, Map.of("orders", Long.toString(orders),
                "customers", Long.toString(customers), "output", output.toString()), 2, streaming());

        assertThat(outcome.finished()).as("%s", outcome).isTrue();
        Map<Long, long[]> expected = new HashMap<>();
        for (long i = 0; i < orders; i++) {
            var order = OrderTotals.order(i, customers);
            long[] soFar = expected.computeIfAbsent(order.f0(), c -> new long[2]);
            soFar[0]++;
            soFar[1] += order.f1();
        }
        Map<Long, long[]> last = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (String line : lines(output)) {
            String[] fields = line.split(",");
            assertThat(seen.add(fields[0] + "/" + fields[1])).as("update %s written once", line).isTrue();
            long customer = Long.parseLong(fields[0]);
            long count = Long.parseLong(fields[1]);
            if (!last.containsKey(customer) || last.get(customer)[0] < count) {
                last.put(customer, new long[] {count, Long.parseLong(fields[2])});
            }
        }
        assertThat(seen).hasSize((int) orders);
        assertThat(last.keySet()).isEqualTo(expected.keySet());
        expected.forEach((customer, want) -> assertThat(last.get(customer)).as("customer %d", customer)
                .containsExactly(want[0], want[1]));
    }

    private static java.util.List<String> lines(Path output) throws IOException {
        java.util.List<String> lines = new java.util.ArrayList<>();
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(output, "part-*")) {
            for (Path part : parts) {
                lines.addAll(Files.readAllLines(part));
            }
        }
        return lines;
    }
}
