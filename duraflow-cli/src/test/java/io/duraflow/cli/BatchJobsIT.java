package io.duraflow.cli;

import static io.duraflow.cli.ExactResults.assertSameEntries;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.Tuple2;
import io.duraflow.client.CollectedResults;
import io.duraflow.examples.OrdersJoin;
import io.duraflow.examples.TpchQ1;
import io.duraflow.examples.WordCount;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example jobs on a healthy cluster of 1 JobManager and 2 TaskManagers, each result compared
 * exactly with the same answer computed here by plain loops over the jobs' public generators.
 */
class BatchJobsIT {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path tempDir;

    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 2, Map.of());
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Runs a job through the gRPC client and returns its result, after checking it finished without restarts. */
    private static Map<String, List<Object>> runToCompletion(String jobClass, Map<String, String> params,
            int parallelism, long expectedSourceRecords) {
        String jobId = cluster.submit(jobClass, params, parallelism);
        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state of %s, failure '%s'", jobId, status.getFailure())
                .isEqualTo(JobState.JOB_FINISHED);
        assertThat(status.getRestarts()).as("restarts").isZero();
        JobGraph graph = JobPlans.build(jobClass, params, parallelism);
        long sourceRecords = 0;
        for (VertexStatus vertex : status.getVerticesList()) {
            assertThat(vertex.getFinished()).as("finished tasks of %s", vertex.getName())
                    .isEqualTo(vertex.getParallelism());
            assertThat(vertex.getAttempts()).as("task runs of %s (none re-executed)", vertex.getName())
                    .isEqualTo(vertex.getParallelism());
            if (graph.vertex(vertex.getId()).isSource()) {
                sourceRecords += vertex.getRecordsIn();
            }
        }
        assertThat(sourceRecords).as("records read by the sources").isEqualTo(expectedSourceRecords);
        return CollectedResults.decode(result, graph);
    }

    @Test
    void wordCountOverGeneratedWords() {
        long words = 2_000_000;
        long distinct = 50_000;
        Map<String, String> params = Map.of("words", Long.toString(words), "distinct", Long.toString(distinct));

        Map<String, List<Object>> results = runToCompletion(WordCount.class.getName(), params, 3, words);

        Map<String, Long> expected = new HashMap<>();
        for (long i = 0; i < words; i++) {
            expected.merge(WordCount.word(i, distinct), 1L, Long::sum);
        }
        assertThat(results).containsOnlyKeys(WordCount.RESULT);
        assertThat(results.get(WordCount.RESULT)).hasSize(expected.size());
        assertSameEntries("word counts", ExactResults.<String, Long>toMap(results.get(WordCount.RESULT)), expected);
    }

    @Test
    void tpchQ1() {
        long rows = 500_000;
        Map<String, String> params = Map.of("rows", Long.toString(rows), "splits", "6");

        Map<String, List<Object>> results = runToCompletion(TpchQ1.class.getName(), params, 2, rows);

        Map<String, long[]> sums = new TreeMap<>();
        for (long i = 0; i < rows; i++) {
            TpchQ1.LineItem item = TpchQ1.lineItem(i);
            if (item.shipDate() > TpchQ1.SHIP_DATE_LIMIT) {
                continue;
            }
            long[] s = sums.computeIfAbsent(item.returnFlag() + "|" + item.lineStatus(), k -> new long[6]);
            long discountedPrice = item.extendedPriceCents() * (100 - item.discountPercent());
            s[0] += item.quantity();
            s[1] += item.extendedPriceCents();
            s[2] += discountedPrice;
            s[3] += discountedPrice * (100 + item.taxPercent());
            s[4] += item.discountPercent();
            s[5]++;
        }
        List<TpchQ1.Q1Row> expected = new ArrayList<>();
        sums.forEach((group, s) -> expected.add(new TpchQ1.Q1Row(group.substring(0, 1), group.substring(2), s[0], s[1],
                s[2], s[3], s[4], s[5])));

        assertThat(results).containsOnlyKeys(TpchQ1.RESULT);
        assertThat(results.get(TpchQ1.RESULT)).as("Q1 rows").containsExactlyInAnyOrderElementsOf(expected);
        assertThat(ExactResults.sortedStrings(results.get(TpchQ1.RESULT))).as("Q1 rows as printed")
                .isEqualTo(ExactResults.sortedStrings(expected));
    }

    @Test
    void ordersJoin() {
        long customers = 20_000;
        long orders = 1_000_000;
        Map<String, String> params = Map.of("customers", Long.toString(customers), "orders", Long.toString(orders));

        Map<String, List<Object>> results = runToCompletion(OrdersJoin.class.getName(), params, 2, customers + orders);

        Map<String, Long> expected = new HashMap<>();
        for (long i = 0; i < orders; i++) {
            OrdersJoin.Order order = OrdersJoin.order(i, customers);
            if (order.custKey() < customers) {
                expected.merge(OrdersJoin.customer(order.custKey()).segment(), order.totalCents(), Long::sum);
            }
        }
        assertThat(expected).hasSize(5);
        assertThat(results).containsOnlyKeys(OrdersJoin.RESULT);
        assertSameEntries("revenue per segment", ExactResults.<String, Long>toMap(results.get(OrdersJoin.RESULT)),
                expected);
    }

    /** The command line's own output: every record printed, sorted by its string form. */
    @Test
    void cliRunPrintsAllRecordsSorted() throws Exception {
        long words = 1_000;
        long distinct = 7;
        Cli.Result run = Cli.run(LOGS.watch(tempDir), JOB_TIMEOUT, "run", "wordcount", "--jobmanager",
                cluster.address(), "--param", "words=" + words, "--param", "distinct=" + distinct, "--show", "100");

        assertThat(run.exitCode()).as("%s", run).isZero();
        List<String> lines = run.stdout().lines().toList();
        assertThat(lines).as("%s", run).anyMatch(line -> line.matches("Job \\S+ \\(WordCount\\) FINISHED in .*"));
        int header = lines.indexOf("  " + WordCount.RESULT + ": " + distinct + " records");
        assertThat(header).as("result header in %s", run).isNotNegative();
        List<Object> expected = new ArrayList<>();
        Map<String, Long> counts = new HashMap<>();
        for (long i = 0; i < words; i++) {
            counts.merge(WordCount.word(i, distinct), 1L, Long::sum);
        }
        counts.forEach((word, count) -> expected.add(Tuple2.of(word, count)));
        List<String> printed = lines.subList(header + 1, header + 1 + (int) distinct).stream().map(String::trim)
                .toList();
        assertThat(printed).isEqualTo(ExactResults.sortedStrings(expected));
        assertThat(run.stderr()).isEmpty();
    }

    /** Text files in, part files out: the words of two files (a '_' and a '.' file are skipped). */
    @Test
    void wordCountFromTextFilesToPartFiles() throws Exception {
        Path input = Files.createDirectories(tempDir.resolve("input"));
        Path output = tempDir.resolve("output");
        Map<String, Long> expected = new HashMap<>();
        writeWords(input.resolve("a.txt"), 60_000, new Random(1), expected);
        writeWords(input.resolve("b.txt"), 30_000, new Random(2), expected);
        writeWords(input.resolve("_skipped.txt"), 100, new Random(3), new HashMap<>());
        writeWords(input.resolve(".hidden.txt"), 100, new Random(4), new HashMap<>());

        Cli.Result run = Cli.run(LOGS.watch(tempDir), JOB_TIMEOUT, "run", "wordcount", "--jobmanager",
                cluster.address(), "--parallelism", "2", "--param", "input=" + input, "--param", "output=" + output);

        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.stdout()).as("%s", run).containsPattern("Job \\S+ \\(WordCount\\) FINISHED in");
        List<Path> files;
        try (Stream<Path> list = Files.list(output)) {
            files = list.sorted().toList();
        }
        assertThat(files).as("files in %s (no in-progress files left)", output).isNotEmpty()
                .allMatch(file -> file.getFileName().toString().matches("part-\\d+"));
        Map<String, Long> written = new HashMap<>();
        for (Path file : files) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] fields = line.split("\t", -1);
                assertThat(fields).as("line '%s' of %s", line, file).hasSize(2);
                Long previous = written.put(fields[0], Long.parseLong(fields[1]));
                assertThat(previous).as("second line for '%s' in %s", fields[0], file).isNull();
            }
        }
        assertSameEntries("counts in " + output, written, expected);
    }

    private static final String[] VOCABULARY = {"alpha", "Beta", "GAMMA", "delta", "café", "Straße", "ÉTÉ",
            "naïve", "x", "don't", "e-mail", "3.14", "über"};

    /**
     * Lines of words joined by runs of spaces and tabs, some lines empty, "\n" and "\r\n" line
     * ends, and no line end after the last line; counts each word, lower-cased, into expected.
     */
    private static void writeWords(Path file, int lines, Random random, Map<String, Long> expected) throws IOException {
        String[] separators = {" ", "  ", "\t", " \t "};
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int line = 0; line < lines; line++) {
                int words = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(12);
                if (words > 0 && random.nextBoolean()) {
                    out.write(separators[random.nextInt(separators.length)]);
                }
                for (int w = 0; w < words; w++) {
                    String word = random.nextInt(4) == 0 ? VOCABULARY[random.nextInt(VOCABULARY.length)]
                            : "Word" + random.nextInt(5_000);
                    if (random.nextInt(3) == 0) {
                        word = word.toUpperCase(Locale.ROOT);
                    }
                    out.write(word);
                    expected.merge(word.toLowerCase(Locale.ROOT), 1L, Long::sum);
                    if (w < words - 1) {
                        out.write(separators[random.nextInt(separators.length)]);
                    }
                }
                if (line < lines - 1) {
                    out.write(random.nextInt(5) == 0 ? "\r\n" : "\n");
                }
            }
        }
    }
}
