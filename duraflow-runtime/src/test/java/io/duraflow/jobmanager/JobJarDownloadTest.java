package io.duraflow.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.artifact.JobJar;
import io.duraflow.jobmanager.dispatcher.JobDirectories;
import io.duraflow.rpc.proto.ArtifactChunk;
import io.duraflow.rpc.proto.FetchArtifactRequest;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TaskManager's download of a job's jar ({@code FetchArtifact}) is sent as the call takes it,
 * one chunk per ready signal here, never the whole jar at once; it ends, fails or is cancelled
 * with the stored copy closed.
 */
class JobJarDownloadTest {
    private static final String JOB_ID = "job-1";

    @TempDir
    Path dir;

    /**
     * A call whose transport holds one message: not ready once it holds one, until {@link #drain}
     * (the message went out), which runs the ready handler as gRPC does.
     */
    private static final class OneMessageCall extends ServerCallStreamObserver<ArtifactChunk> {
        final List<ArtifactChunk> sent = new ArrayList<>();
        int held;
        Runnable onReady;
        Runnable onCancel;
        boolean completed;
        Throwable error;

        @Override
        public boolean isReady() {
            return held == 0;
        }

        @Override
        public void onNext(ArtifactChunk chunk) {
            assertThat(isReady()).as("a chunk was sent while the call was not ready (chunk %d)", sent.size()).isTrue();
            assertThat(completed || error != null).as("a chunk after the end").isFalse();
            sent.add(chunk);
            held++;
        }

        void drain() {
            held = 0;
            onReady.run();
        }

        byte[] received() throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (ArtifactChunk chunk : sent) {
                chunk.getData().writeTo(bytes);
            }
            return bytes.toByteArray();
        }

        @Override
        public void onError(Throwable t) {
            error = t;
        }

        @Override
        public void onCompleted() {
            completed = true;
        }

        @Override
        public void setOnReadyHandler(Runnable handler) {
            onReady = handler;
        }

        @Override
        public void setOnCancelHandler(Runnable handler) {
            onCancel = handler;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public void setCompression(String compression) {}

        @Override
        public void disableAutoInboundFlowControl() {}

        @Override
        public void request(int count) {}

        @Override
        public void setMessageCompression(boolean enable) {}
    }

    /** An input stream that remembers whether it was closed. */
    private static final class ClosingStream extends ByteArrayInputStream {
        boolean closed;

        ClosingStream(byte[] bytes) {
            super(bytes);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void theStoredJarGoesOutAChunkPerReadySignalInOrderAndThenTheCallCompletes() throws IOException {
        byte[] jar = new byte[JobJarTransfers.CHUNK_BYTES * 5 / 2];
        new Random(7).nextBytes(jar);
        JobDirectories directories = JobDirectories.local(dir.resolve("ha/jobs"));
        Path stored = dir.resolve("jar");
        Files.write(stored, jar);
        String sha256 = JobJar.sha256(stored);
        Path artifacts = Files.createDirectories(dir.resolve("ha/jobs").resolve(JOB_ID).resolve("artifacts"));
        Files.move(stored, artifacts.resolve(sha256 + ".jar"));
        OneMessageCall call = new OneMessageCall();

        JobJarTransfers.download(directories, FetchArtifactRequest.newBuilder().setJobId(JOB_ID).setSha256(sha256)
                .build(), call);
        call.drain();
        assertThat(call.sent).as("sent on the first ready signal").hasSize(1);
        for (int signals = 1; !call.completed && signals < 10; signals++) {
            call.drain();
        }

        assertThat(call.error).isNull();
        assertThat(call.completed).isTrue();
        assertThat(call.sent).hasSize(3);
        assertThat(call.received()).isEqualTo(jar);
    }

    @Test
    void aJarThatIsNotStoredIsNotFound() {
        OneMessageCall call = new OneMessageCall();

        JobJarTransfers.download(JobDirectories.local(dir.resolve("ha/jobs")), FetchArtifactRequest.newBuilder()
                .setJobId(JOB_ID).setSha256("ab".repeat(32)).build(), call);

        assertThat(Status.fromThrowable(call.error).getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(call.sent).isEmpty();
    }

    @Test
    void aCancelledDownloadClosesTheStoredCopyAndSendsNoMore() {
        ClosingStream in = new ClosingStream(new byte[100]);
        OneMessageCall call = new OneMessageCall();
        JobJarDownload.start(in, call, "the jar", 10);

        call.drain();
        call.onCancel.run();
        call.drain();

        assertThat(in.closed).isTrue();
        assertThat(call.sent).hasSize(1);
        assertThat(call.completed).isFalse();
    }

    @Test
    void aReadErrorEndsTheCallAsUnavailableAndClosesTheStoredCopy() {
        boolean[] closed = {false};
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("disk gone");
            }

            @Override
            public void close() {
                closed[0] = true;
            }
        };
        OneMessageCall call = new OneMessageCall();
        JobJarDownload.start(failing, call, "the jar", 10);

        call.drain();

        assertThat(Status.fromThrowable(call.error).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(call.error).hasMessageContaining("cannot read the jar: disk gone");
        assertThat(closed[0]).isTrue();
    }
}
