package io.duraflow.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.artifact.JobJar;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.FetchArtifactRequest;
import io.duraflow.rpc.proto.JobArtifact;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's jar fetched from the leader in chunks, checked against the deployment's SHA-256 as it
 * arrives, cached under that hash (fetched once for jobs that share it) or, if its bytes do not
 * match, refused with nothing left behind.
 */
class TaskManagerJarsTest {
    @TempDir
    Path dir;

    /** A leader that sends {@code bytes} for every jar, in chunks of 1000 bytes, and counts the fetches. */
    private static final class SendingLeader implements JobManagerClient {
        final byte[] bytes;
        final List<String> fetchedJobs = new ArrayList<>();

        SendingLeader(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public CompletableFuture<Void> fetchArtifact(FetchArtifactRequest request, OutputStream out, long timeoutMs) {
            fetchedJobs.add(request.getJobId());
            try {
                for (int offset = 0; offset < bytes.length; offset += 1000) {
                    out.write(bytes, offset, Math.min(1000, bytes.length - offset));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<RegisterTaskManagerResponse> register(RegisterTaskManagerRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<JobManagerHeartbeat> heartbeat(TaskManagerHeartbeat heartbeat) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Ack> updateTaskState(TaskStateUpdate update) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Ack> sendOperatorEvent(OperatorEventFromTask event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Ack> acknowledgeCheckpoint(AcknowledgeCheckpointRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Ack> declineCheckpoint(DeclineCheckpointRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Ack> reportInputEnded(TaskInputEnded report) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {}
    }

    private static byte[] randomBytes(int size) {
        byte[] bytes = new byte[size];
        new Random(11).nextBytes(bytes);
        return bytes;
    }

    private String sha256(byte[] bytes) throws IOException {
        Path file = Files.write(Files.createTempFile(dir, "bytes", ".bin"), bytes);
        try {
            return JobJar.sha256(file);
        } finally {
            Files.delete(file);
        }
    }

    private static TaskDeployment deployment(String jobId, String sha256) {
        return TaskDeployment.newBuilder().setAttempt(AttemptId.newBuilder().setJobId(jobId))
                .setArtifact(JobArtifact.newBuilder().setSha256(sha256).setFileName("app.jar")).build();
    }

    private static List<String> files(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aJarWhoseBytesMatchItsHashIsCachedUnderItAndFetchedOnceForJobsThatShareIt() throws IOException {
        byte[] jar = randomBytes(10_500);
        String sha256 = sha256(jar);
        SendingLeader leader = new SendingLeader(jar);
        TaskManagerJars jars = new TaskManagerJars(dir.resolve("jars"), 10_000);

        ClassLoader first = jars.loader(deployment("job-1", sha256), leader);
        ClassLoader second = jars.loader(deployment("job-2", sha256), leader);

        assertThat(leader.fetchedJobs).containsExactly("job-1");
        assertThat(first).isNotSameAs(second).isSameAs(jars.loaded("job-1"));
        assertThat(files(dir.resolve("jars"))).containsExactly(sha256 + ".jar");
        assertThat(Files.readAllBytes(dir.resolve("jars").resolve(sha256 + ".jar"))).isEqualTo(jar);
    }

    @Test
    void aJarWhoseBytesDoNotMatchItsHashIsRefusedAndLeavesNothing() throws IOException {
        byte[] jar = randomBytes(10_500);
        String expected = sha256(new byte[] {1, 2, 3});
        TaskManagerJars jars = new TaskManagerJars(dir.resolve("jars"), 10_000);

        assertThatThrownBy(() -> jars.loader(deployment("job-1", expected), new SendingLeader(jar)))
                .isInstanceOf(IOException.class)
                .hasMessage("jar app.jar of job job-1 arrived with SHA-256 " + sha256(jar) + ", not the " + expected
                        + " it was submitted with");
        assertThat(files(dir.resolve("jars"))).isEmpty();
        assertThat(jars.loaded("job-1")).isNull();
    }
}
