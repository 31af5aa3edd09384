package io.duraflow.rest;

import io.duraflow.artifact.JobClassLoader;
import io.duraflow.artifact.JobJar;
import io.duraflow.client.JarSubmissions;
import io.duraflow.config.JobManagerOptions;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.JobArtifact;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * A job's jar posted to {@code POST /v1/jobs} ({@code Content-Type: application/java-archive}):
 * received into a local file (at most {@code jobmanager.artifact.max-size}), checked, its job class
 * found as {@code duraflow run app.jar} finds it, and sent to the dispatcher the way the CLI sends
 * it ({@code SubmitJar}, in-process).
 */
final class JarUploads {
    private JarUploads() {}

    /** Reads the request body into a new temporary file; 413 above {@code maxBytes}. */
    static Path receive(InputStream body, long maxBytes) throws IOException {
        Path directory = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "duraflow-jar-uploads"));
        Path file = Files.createTempFile(directory, "rest-", ".jar");
        try (InputStream in = body; OutputStream out = Files.newOutputStream(file)) {
            byte[] buffer = new byte[64 * 1024];
            long total = 0;
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                total += n;
                if (total > maxBytes) {
                    throw new RestException(413, "the jar is larger than " + JobManagerOptions.ARTIFACT_MAX_SIZE.key()
                            + " (" + maxBytes + " bytes): make it smaller or raise the option");
                }
                out.write(buffer, 0, n);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        return file;
    }

    /**
     * Submits the job in {@code jar}: {@code request}'s job class, or the jar's own (400 naming the
     * field {@code jar} when it has none, several, or the class is not a job).
     */
    static CompletableFuture<SubmitJobResponse> submit(DispatcherGatewayGrpc.AsyncService gateway,
            SubmitJobRequest.Builder request, Path jar, String fileName) throws IOException {
        JobJar checked;
        try {
            checked = JobJar.open(jar);
            try (JobClassLoader loader = new JobClassLoader("upload", jar, JarUploads.class.getClassLoader())) {
                request.setJobClass(checked.jobClass(loader, request.getJobClass()));
            }
        } catch (JobJar.JobJarException e) {
            // The whole path first: once its file name is replaced the path no longer matches, and the
            // message would show the JobManager's temporary directory.
            throw RestException.badRequest("jar", e.getMessage().replace(jar.toString(), fileName)
                    .replace(jar.getFileName().toString(), fileName));
        }
        request.setArtifact(JobArtifact.newBuilder().setSha256(checked.sha256()).setFileName(fileName)
                .setSize(checked.size()));
        return JarSubmissions.send(gateway::submitJar, request.build(), jar);
    }
}
