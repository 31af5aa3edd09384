package io.duraflow.cli;

import io.duraflow.artifact.JobClassLoader;
import io.duraflow.artifact.JobJar;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Prints a terminated job's result from the job result store, at any time after it ended. */
@Command(name = "result", description = "Prints a terminated job's result: status, times, records, failure cause.")
final class ResultCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    Duraflow root;

    @Parameters(index = "0", paramLabel = "JOB_ID")
    String jobId;

    @CommandLine.Mixin
    Duraflow.ShowOption show = new Duraflow.ShowOption();

    @CommandLine.Option(names = "--jar", paramLabel = "FILE",
            description = "The jar the job was submitted from: its classes decode the job's collected records")
    Path jar;

    @Override
    public Integer call() throws Exception {
        return root.withClient((client, config) -> {
            JobResult result = client.result(jobId);
            if (!JobRunner.isTerminal(result.getStatus().getState())) {
                System.out.println("Job " + jobId + " has not ended yet; see 'duraflow status " + jobId + "'");
                return 1;
            }
            print(result, show.records, jar);
            return result.getStatus().getState() == JobState.JOB_FINISHED ? 0 : 1;
        });
    }

    static void print(JobResult result, int show, Path jarFile) {
        var status = result.getStatus();
        if (status.getResultUnreadable()) {
            new JobRunner(null, System.out).printResult(result, null, show);
            return;
        }
        System.out.println("Job " + status.getJobId() + " (" + status.getJobName() + ", " + status.getJobClass() + ")");
        System.out.println("  submitted: " + (status.getSubmittedAtMs() > 0 ? Instant.ofEpochMilli(status.getSubmittedAtMs())
                : "unknown"));
        System.out.println("  ended:     " + (status.getEndedAtMs() > 0 ? Instant.ofEpochMilli(status.getEndedAtMs())
                : "unknown"));
        System.out.println("  params:    " + result.getParamsMap());
        if (status.hasArtifact()) {
            System.out.println("  jar:       " + status.getArtifact().getFileName() + " (sha256 "
                    + status.getArtifact().getSha256() + ")");
        }
        JobClassLoader loader = jarFile == null ? null : jobLoader(jarFile, status);
        try {
            JobGraph graph = null;
            if (status.hasArtifact() && loader == null) {
                System.out.println("  (collected records cannot be decoded without the job's classes: add --jar "
                        + status.getArtifact().getFileName() + ")");
            } else {
                try {
                    graph = JobPlans.build(loader == null ? Thread.currentThread().getContextClassLoader() : loader,
                            status.getJobClass(), result.getParamsMap(), 1, io.duraflow.config.RuntimeMode.AUTOMATIC);
                } catch (RuntimeException | LinkageError e) {
                    System.out.println("  (collected records cannot be decoded here: " + e.getMessage() + ")");
                }
            }
            if (!result.getCountersMap().isEmpty()) {
                System.out.println("  counters:  " + result.getCountersMap());
            }
            // Decoded while the job's loader is open: the records may be of its classes.
            new JobRunner(null, System.out).printResult(result, graph, show);
        } finally {
            if (loader != null) {
                try {
                    loader.close();
                } catch (java.io.IOException e) {
                    // only the jar's file handle; the command ends anyway
                }
            }
        }
    }

    /** A loader of the jar the job ran from; the jar must be that one (its SHA-256, when the job was submitted from a jar). */
    private static JobClassLoader jobLoader(Path jarFile, io.duraflow.rpc.proto.JobStatus status) {
        JobJar jar;
        try {
            jar = JobJar.open(jarFile);
        } catch (JobJar.JobJarException e) {
            throw new CliException(e.getMessage());
        }
        if (status.hasArtifact() && !status.getArtifact().getSha256().equals(jar.sha256())) {
            throw new CliException("jar " + jarFile + " is not the one job " + status.getJobId() + " was submitted from ("
                    + status.getArtifact().getFileName() + ", sha256 " + status.getArtifact().getSha256()
                    + "): pass that jar with --jar");
        }
        return new JobClassLoader("result", jar.path(), ResultCommand.class.getClassLoader());
    }
}
