package io.duraflow.cli;

import io.duraflow.examples.OrdersJoin;
import io.duraflow.examples.TpchQ1;
import io.duraflow.examples.WordCount;
import java.util.LinkedHashMap;
import java.util.Map;

/** Short names for the bundled example jobs. */
final class JobAliases {
    static final Map<String, String> ALIASES = new LinkedHashMap<>();

    static {
        ALIASES.put("wordcount", WordCount.class.getName());
        ALIASES.put("tpch-q1", TpchQ1.class.getName());
        ALIASES.put("join", OrdersJoin.class.getName());
        ALIASES.put("recovery-demo", io.duraflow.examples.RecoveryDemo.class.getName());
        ALIASES.put("streaming-keyed-sum", io.duraflow.examples.StreamingKeyedSum.class.getName());
        ALIASES.put("snapshot-changelog", io.duraflow.examples.SnapshotChangelogJob.class.getName());
        ALIASES.put("nexmark", io.duraflow.examples.nexmark.NexmarkQueries.class.getName());
        ALIASES.put("kafka-keyed-count", io.duraflow.cli.kafka.KafkaKeyedCount.class.getName());
    }

    private JobAliases() {}

    static String resolve(String job) {
        return ALIASES.getOrDefault(job.toLowerCase(), job);
    }

    /** What {@code run} takes for {@code jobClass}: its short name if it is a bundled example, else the class. */
    static String aliasOf(String jobClass) {
        for (Map.Entry<String, String> alias : ALIASES.entrySet()) {
            if (alias.getValue().equals(jobClass)) {
                return alias.getKey();
            }
        }
        return jobClass;
    }

    static String list() {
        return String.join(", ", ALIASES.keySet());
    }
}
