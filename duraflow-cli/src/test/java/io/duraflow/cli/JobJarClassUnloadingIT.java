package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.artifact.JobClassLoader;
import io.duraflow.artifact.JobJar;
import io.duraflow.client.CollectedResults;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobArtifact;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hundred jobs from jars after twenty to warm up, one after the other, leave the JobManager's
 * and the TaskManagers' classes and metaspace where they were: each job's {@link JobClassLoader} is
 * collected on every process once the job ended there.
 *
 * <p>The job's jar is built while the test runs (its classes are on no cluster process's class
 * path) and holds {@value #STEPS} map functions of its own, a record that flows between them (with
 * the API's record serializer) and the job class, all of which the JobManager and both
 * TaskManagers load to build and run the plan: a leak of the loaders of the jobs after the
 * baseline would keep thousands of classes and megabytes of metaspace.
 *
 * <p>Each process is counted with {@link ClassCensus} (jcmd: a full GC, then {@code VM.metaspace})
 * after {@value #WARM_UP} jobs, when the engine's own classes for running a job from a jar are
 * loaded, and again after the last job's cleanup; one line per process goes to the test's output
 * ({@code target/failsafe-reports/JobJarClassUnloadingIT-output.txt}).
 */
class JobJarClassUnloadingIT {
    private static final int STEPS = 20;
    private static final int WARM_UP = 20;
    private static final int JOBS = 120;
    private static final int PARALLELISM = 2;
    private static final long RECORDS = 20;
    private static final String PACKAGE = "com.example.classes";
    private static final String JOB_CLASS = PACKAGE + ".ManyClasses";
    private static final Duration TIMEOUT = Duration.ofMinutes(1);
    /**
     * What a process may gain between the counts without a job's loader surviving: classes of
     * engine code paths first taken after the warm-up, lambda forms the JDK spins on demand (a
     * handful in practice). One job defines more than {@value #STEPS} classes in every process, in
     * a loader of its own and over 40 KiB of metaspace, so the loaders of the {@code JOBS - WARM_UP}
     * jobs after the baseline would be at least twice each slack (over 2,000 classes, 100 loaders,
     * 4 MiB of metaspace).
     */
    private static final long CLASS_SLACK = 100;
    private static final long LOADER_SLACK = 20;
    private static final long METASPACE_SLACK_BYTES = 2L << 20;

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    @Test
    void aHundredJobsFromJarsAfterTheWarmUpLeaveEveryProcesssClassesAndMetaspaceFlat() throws Exception {
        long started = System.nanoTime();
        byte[] jar = Files.readAllBytes(TestJars.build(tempDir.resolve("many-classes.jar"), manyClassesJob(), Map.of()));
        Path jars = Files.createDirectories(tempDir.resolve("jars"));
        long built = System.nanoTime();
        // One slot per TaskManager: each of the job's two subtasks runs on a TaskManager of its own.
        try (TestCluster cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 2,
                Map.of("taskmanager.slots", "1"))) {
            Map<String, Long> pids = new LinkedHashMap<>();
            pids.put("jobmanager", cluster.jobManagerPid());
            pids.put("taskmanager-0", cluster.taskManagerPid(0));
            pids.put("taskmanager-1", cluster.taskManagerPid(1));
            long clusterUp = System.nanoTime();

            JobTimes warmUp = runJobs(cluster, jar, jars, 0, WARM_UP);
            awaitJarsCleanedUp(tempDir.resolve("cluster"));
            long counting = System.nanoTime();
            Map<String, ClassCensus> baseline = census(pids);
            long counted = System.nanoTime();
            JobTimes measured = runJobs(cluster, jar, jars, WARM_UP, JOBS);
            awaitJarsCleanedUp(tempDir.resolve("cluster"));
            Map<String, ClassCensus> end = awaitFlat(pids, baseline);

            for (String process : pids.keySet()) {
                System.out.printf("%s after %d more jobs from jars: %s%n", process, JOBS - WARM_UP,
                        end.get(process).since(baseline.get(process)));
            }
            System.out.printf("job jar built in %.1f s, cluster started in %.1f s, %d warm-up jobs %s, one count of"
                    + " the 3 processes %.1f s, %d jobs %s; the whole test %.1f s%n", seconds(started, built),
                    seconds(built, clusterUp), WARM_UP, warmUp, seconds(counting, counted), JOBS - WARM_UP, measured,
                    seconds(started, System.nanoTime()));
            for (String process : pids.keySet()) {
                assertFlat(process, baseline.get(process), end.get(process));
            }
        }
    }

    // ------------------------------------------------------------------ the jobs

    /**
     * Wall times of a run of jobs, each split into its submission (the jar's upload, until the
     * JobManager accepted the job) and the rest (until the client saw it end).
     */
    private record JobTimes(List<Long> submitNanos, List<Long> runNanos) {
        @Override
        public String toString() {
            List<Long> totals = new ArrayList<>();
            for (int i = 0; i < submitNanos.size(); i++) {
                totals.add(submitNanos.get(i) + runNanos.get(i));
            }
            return String.format("in %.1f s (a job: median %.0f ms, of submission %.0f and run %.0f, mean %.0f, max %.0f)",
                    totals.stream().mapToLong(Long::longValue).sum() / 1e9, median(totals), median(submitNanos),
                    median(runNanos), totals.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6,
                    totals.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6);
        }

        private static double median(List<Long> nanos) {
            List<Long> sorted = nanos.stream().sorted().toList();
            return sorted.get(sorted.size() / 2) / 1e6;
        }
    }

    /** Runs jobs {@code from} .. {@code to - 1} one after the other; checks the records of a few exactly. */
    private static JobTimes runJobs(TestCluster cluster, byte[] base, Path jars, int from, int to) throws Exception {
        List<Long> submitNanos = new ArrayList<>();
        List<Long> runNanos = new ArrayList<>();
        for (int i = from; i < to; i++) {
            Path jar = Files.write(jars.resolve(String.format("many-classes-%03d.jar", i)), stamped(base, i));
            JobJar checked = JobJar.open(jar);
            String jobId = String.format("classes-%03d", i);
            long submitting = System.nanoTime();
            cluster.client().submitJar(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(JOB_CLASS)
                    .putParams("n", Long.toString(RECORDS)).setParallelism(PARALLELISM)
                    .setArtifact(JobArtifact.newBuilder().setSha256(checked.sha256()).setFileName(checked.fileName())
                            .setSize(checked.size()))
                    .build(), jar);
            long submitted = System.nanoTime();
            JobStatus status = await("job " + jobId + " ends").atMost(TIMEOUT).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(5)).until(() -> cluster.status(jobId),
                            now -> JobRunner.isTerminal(now.getState()));
            submitNanos.add(submitted - submitting);
            runNanos.add(System.nanoTime() - submitted);
            assertThat(status.getState()).as("job %s: %s", jobId, status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
            if (i == 0 || i == WARM_UP || i == to - 1) {
                assertThat(decoded(cluster.client().result(jobId), jar)).as("job %s's records", jobId)
                        .isEqualTo(expectedRecords());
            }
            Files.delete(jar);
        }
        return new JobTimes(submitNanos, runNanos);
    }

    /**
     * The job's jar with a zip comment that names the run, so that every job's jar has a SHA-256
     * of its own, as jobs from different builds do. One shared hash would still give each job a
     * class loader of its own (they are per job on every process), but the TaskManagers cache jars
     * under their hash (deleted when no job there uses it) and the JobManager keeps local copies
     * under job id and hash: with one hash, a cache keyed by the jar's path or URL would be
     * overwritten job after job and hide a leak.
     *
     * <p>A zip ends with its end-of-central-directory record, 22 bytes whose last two are the
     * length of the comment that follows (little-endian); the jar TestJars writes has none.
     */
    private static byte[] stamped(byte[] base, int run) {
        ByteBuffer end = ByteBuffer.wrap(base, base.length - 22, 22).order(ByteOrder.LITTLE_ENDIAN);
        if (end.getInt() != 0x06054b50 || end.getShort(base.length - 2) != 0) {
            throw new IllegalStateException("the job's jar does not end with an end-of-central-directory record"
                    + " without a comment");
        }
        byte[] comment = ("run " + run).getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(base.length + comment.length).order(ByteOrder.LITTLE_ENDIAN)
                .put(base, 0, base.length - 2).putShort((short) comment.length).put(comment).array();
    }

    /** The job's records, decoded with its plan built here from its jar. */
    private static List<String> decoded(JobResult result, Path jar) throws IOException {
        try (JobClassLoader loader = new JobClassLoader("test", jar, JobJarClassUnloadingIT.class.getClassLoader())) {
            return ExactResults.sortedStrings(CollectedResults.decode(result, JobPlans.build(loader, JOB_CLASS,
                    Map.of("n", Long.toString(RECORDS)), PARALLELISM, RuntimeMode.AUTOMATIC)).get("values"));
        }
    }

    /** What every step does to a number: {@code acc = acc * 31 + step}, from {@code acc = x}. */
    private static List<String> expectedRecords() {
        List<Object> records = new ArrayList<>();
        for (long x = 0; x < RECORDS; x++) {
            long acc = x;
            for (int step = 0; step < STEPS; step++) {
                acc = acc * 31 + step;
            }
            records.add(io.duraflow.api.types.Tuple2.of(x, acc));
        }
        return ExactResults.sortedStrings(records);
    }

    /**
     * {@code com.example.classes.ManyClasses}: the numbers 0..n-1 as {@code Value} records through
     * {@value #STEPS} map functions, {@code Step00} .. {@code Step19}, each a class of its own,
     * collected as "values" (id, acc) pairs.
     */
    private static Map<String, String> manyClassesJob() {
        Map<String, String> sources = new LinkedHashMap<>();
        sources.put(PACKAGE + ".Value", """
                package com.example.classes;

                public record Value(long id, long acc) {}
                """);
        StringBuilder steps = new StringBuilder();
        for (int step = 0; step < STEPS; step++) {
            String name = String.format("Step%02d", step);
            sources.put(PACKAGE + "." + name, """
                    package com.example.classes;

                    public final class NAME implements io.duraflow.api.functions.MapFunction<Value, Value> {
                        @Override
                        public Value map(Value value) {
                            return new Value(value.id(), value.acc() * 31 + STEP);
                        }
                    }
                    """.replace("NAME", name).replace("STEP", Integer.toString(step)));
            steps.append("        values = values.map(new ").append(name).append("(), type);\n");
        }
        sources.put(JOB_CLASS, """
                package com.example.classes;

                import io.duraflow.api.DuraflowJob;
                import io.duraflow.api.Flow;
                import io.duraflow.api.JobBuilder;
                import io.duraflow.api.JobParameters;
                import io.duraflow.api.connectors.SequenceSource;
                import io.duraflow.api.types.Tuple2;
                import io.duraflow.api.types.TypeSerializer;
                import io.duraflow.api.types.Types;

                public final class ManyClasses implements DuraflowJob {
                    @Override
                    public void build(JobBuilder job, JobParameters params) {
                        long n = params.getLong("n", 100);
                        TypeSerializer<Value> type = Types.record(Value.class);
                        Flow<Value> values = job.fromSource("numbers", new SequenceSource(0, n, 2))
                                .map(x -> new Value(x, x), type);
                STEPS        values.map(v -> Tuple2.of(v.id(), v.acc()), Types.tuple(Types.LONG, Types.LONG))
                                .collect("values");
                    }
                }
                """.replace("STEPS", steps.toString()));
        return sources;
    }

    // ------------------------------------------------------------------ the counts

    /**
     * Waits until no jar is left in the cluster's directories: the stored copies go with each
     * job's cleanup, a TaskManager's cached copy when it closed the job's class loader.
     */
    private static void awaitJarsCleanedUp(Path clusterDir) {
        await("every job's jar deleted from the HA storage and the TaskManagers").atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(50)).until(() -> jarsIn(clusterDir).isEmpty());
    }

    private static List<Path> jarsIn(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".jar")).toList();
        }
    }

    private Map<String, ClassCensus> census(Map<String, Long> pids) throws IOException, InterruptedException {
        return ClassCensus.afterFullGc(pids, tempDir);
    }

    /**
     * The counts once every process is back within the slack of its baseline, or after 15 s (a
     * loader may be closed a moment after the job's cleanup, on a TaskManager's plan-build thread).
     */
    private Map<String, ClassCensus> awaitFlat(Map<String, Long> pids, Map<String, ClassCensus> baseline) {
        List<Map<String, ClassCensus>> last = new ArrayList<>(List.of(Map.of()));
        try {
            await("classes and metaspace back to the baseline").atMost(Duration.ofSeconds(15))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofSeconds(1)).until(() -> {
                        last.set(0, census(pids));
                        return pids.keySet().stream().allMatch(process -> isFlat(baseline.get(process),
                                last.get(0).get(process)));
                    });
        } catch (org.awaitility.core.ConditionTimeoutException leaked) {
            // assertFlat says by how much, per process
        }
        return last.get(0);
    }

    private static boolean isFlat(ClassCensus baseline, ClassCensus now) {
        return now.classes() - baseline.classes() < CLASS_SLACK && now.loaders() - baseline.loaders() < LOADER_SLACK
                && now.metaspaceUsedBytes() - baseline.metaspaceUsedBytes() < METASPACE_SLACK_BYTES;
    }

    private static void assertFlat(String process, ClassCensus baseline, ClassCensus end) {
        assertThat(end.classes() - baseline.classes()).as("%s's classes after %d more jobs from jars (%s)", process,
                JOBS - WARM_UP, end.since(baseline)).isLessThan(CLASS_SLACK);
        assertThat(end.loaders() - baseline.loaders()).as("%s's class loaders after %d more jobs from jars (%s)",
                process, JOBS - WARM_UP, end.since(baseline)).isLessThan(LOADER_SLACK);
        assertThat(end.metaspaceUsedBytes() - baseline.metaspaceUsedBytes()).as("%s's metaspace after %d more jobs"
                + " from jars (%s)", process, JOBS - WARM_UP, end.since(baseline)).isLessThan(METASPACE_SLACK_BYTES);
    }

    private static double seconds(long fromNanos, long toNanos) {
        return (toNanos - fromNanos) / 1e9;
    }
}
