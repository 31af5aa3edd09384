package io.duraflow.jobstore;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Job results and submitted jobs with every field set, for the store tests. */
final class TestEntries {
    static final long SUBMITTED_AT_MS = 1_700_000_000_000L;
    static final long ENDED_AT_MS = SUBMITTED_AT_MS + 5_000;

    private TestEntries() {
    }

    static JobResultEntry finished(String jobId) {
        return ended(jobId, ENDED_AT_MS);
    }

    static JobResultEntry ended(String jobId, long endedAtMs) {
        return new JobResultEntry(jobId, "WordCount", "com.example.WordCount", JobOutcome.FINISHED, SUBMITTED_AT_MS,
                endedAtMs, "", 0, Map.of("input", "/data/in"), Map.of("lines", 3L), List.of(), List.of());
    }

    /** Every field set to something unusual: unicode, quotes, negative and huge numbers, empty and binary bytes. */
    static JobResultEntry everyField(String jobId) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("zeta", "last");
        params.put("input", "/data/\"quoted\"\\path");
        params.put("greeting", "gr\u00fc\u00dfe \u65e5\u672c \ud83d\ude80\nnew line");
        params.put("", "empty key");
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("records", Long.MAX_VALUE);
        counters.put("delta", Long.MIN_VALUE);
        counters.put("zero", 0L);
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        return new JobResultEntry(jobId, "Word Count \u2713", "com.example.WordCount", JobOutcome.FAILED,
                SUBMITTED_AT_MS, ENDED_AT_MS, "java.lang.IllegalStateException: boom \"x\"", 3, params, counters,
                List.of(new VertexSummary(1, "Source: lines", 4, 0, 1_000_000_000_000L, 6, List.of(0, 2, 1, 0)),
                        new VertexSummary(2, "Sink", 0, 7, 0, 0, List.of())),
                List.of(new CollectedData("out", 0, 2, "\u0003abc\u0002de".getBytes(StandardCharsets.UTF_8)),
                        new CollectedData("out", 1, 0, new byte[0]),
                        new CollectedData("binary", 0, 1, binary)));
    }

    static SubmittedJob submitted(String jobId) {
        return new SubmittedJob(jobId, "com.example.WordCount", Map.of("input", "/data/in", "mode", "\u00fcber"),
                Map.of("parallelism.default", "4", "restart-strategy.type", "none"), 3, SUBMITTED_AT_MS);
    }
}
