package io.duraflow.cli;

import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.VertexStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The {@code duraflow run ... --from-savepoint PATH} line that {@code savepoint} and {@code cancel
 * --savepoint} print, ready to paste into a POSIX shell: the job as {@code run} takes it (a bundled
 * example's short name, else its class), its parallelism and parameters, the options a restore
 * needs (streaming mode, the job's checkpoint interval and directory, as far as the JobManager
 * reports them), and the client's own {@code --config}/{@code --work-dir}/{@code --jobmanager}.
 * Other {@code -D} options the job was submitted with are not reported by the JobManager, so they
 * are not in the line.
 */
final class RestoreCommandLine {
    /** Words a shell takes as they are; anything else is single-quoted. */
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");
    private static final Pattern CHECKPOINT_DIRECTORY = Pattern.compile("chk-\\d+");

    /**
     * What the JobManager told about the job while it ran.
     *
     * @param jobClass empty if unknown
     * @param parallelism 0 if unknown
     * @param intervalMs the checkpoint interval; 0 if unknown
     * @param checkpointDirectory {@code execution.checkpointing.dir}; empty if unknown
     */
    record JobFacts(String jobClass, Map<String, String> params, int parallelism, long intervalMs,
            String checkpointDirectory) {
        static final JobFacts UNKNOWN = new JobFacts("", Map.of(), 0, 0, "");
    }

    private RestoreCommandLine() {}

    /**
     * Asks the JobManager about the running job {@code jobId}: its result so far (class,
     * parameters, vertices) and checkpoints. A courtesy for the printed line: what cannot be read
     * is left out, never an error.
     */
    static JobFacts fetch(ClusterClient client, String jobId) {
        JobFacts facts = JobFacts.UNKNOWN;
        try {
            JobResult job = client.result(jobId);
            int parallelism = job.getStatus().getVerticesList().stream().mapToInt(VertexStatus::getParallelism)
                    .max().orElse(0);
            facts = new JobFacts(job.getStatus().getJobClass(), job.getParamsMap(), parallelism, 0, "");
            JobCheckpoints checkpoints = client.checkpoints(jobId);
            facts = new JobFacts(facts.jobClass(), facts.params(), facts.parallelism(), checkpoints.getIntervalMs(),
                    checkpointDirectory(jobId, checkpoints.getLatestCompletedPath()));
        } catch (CliException e) {
            // keep what was read
        }
        return facts;
    }

    /**
     * {@code execution.checkpointing.dir} from a checkpoint's {@code _metadata} path, which is
     * {@code <dir>/<job id>/chk-<n>/_metadata}; empty if the path is not of that form (none yet,
     * or a savepoint).
     */
    static String checkpointDirectory(String jobId, String metadataPath) {
        String[] parts = metadataPath.split("/", -1);
        int n = parts.length;
        if (n < 4 || !parts[n - 1].equals("_metadata") || !CHECKPOINT_DIRECTORY.matcher(parts[n - 2]).matches()
                || !parts[n - 3].equals(jobId)) {
            return "";
        }
        String directory = String.join("/", List.of(parts).subList(0, n - 3));
        return directory.isEmpty() ? "/" : directory;
    }

    /** The client's options that say which cluster it talks to, as they were given. */
    static List<String> connectionOptions(Duraflow root) {
        List<String> options = new ArrayList<>();
        if (root == null) {
            return options;
        }
        if (root.configFile != null) {
            options.addAll(List.of("--config", root.configFile.toAbsolutePath().toString()));
        }
        if (root.workDir != null) {
            options.addAll(List.of("--work-dir", root.workDir.toAbsolutePath().toString()));
        }
        if (root.jobManager != null) {
            options.addAll(List.of("--jobmanager", root.jobManager));
        }
        return options;
    }

    /** {@code duraflow [connection] run JOB [--parallelism N] [--param k=v]... [-D k=v]... --from-savepoint PATH}. */
    static String of(List<String> connection, JobFacts job, String savepointPath) {
        List<String> words = new ArrayList<>(List.of("duraflow"));
        words.addAll(connection);
        words.add("run");
        words.add(job.jobClass().isEmpty() ? "JOB" : JobAliases.aliasOf(job.jobClass()));
        if (job.parallelism() > 0) {
            words.addAll(List.of("--parallelism", Integer.toString(job.parallelism())));
        }
        new TreeMap<>(job.params()).forEach((key, value) -> words.addAll(List.of("--param", key + "=" + value)));
        // A savepoint is taken of streaming jobs only, and only one with checkpointing on restores it.
        words.addAll(List.of("-D", "execution.runtime-mode=streaming"));
        if (job.intervalMs() > 0) {
            words.addAll(List.of("-D", "execution.checkpointing.interval=" + job.intervalMs() + "ms"));
        }
        if (!job.checkpointDirectory().isEmpty()) {
            words.addAll(List.of("-D", "execution.checkpointing.dir=" + job.checkpointDirectory()));
        }
        words.addAll(List.of("--from-savepoint", savepointPath));
        List<String> quoted = new ArrayList<>();
        for (String word : words) {
            quoted.add(word.equals("JOB") ? word : quote(word));
        }
        return String.join(" ", quoted);
    }

    /** {@code word} as one word of a POSIX shell: as it is if plain, else in single quotes. */
    static String quote(String word) {
        if (PLAIN_WORD.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
