package io.duraflow.client;

import com.google.protobuf.ByteString;
import io.duraflow.rpc.proto.JarSubmission;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Sends a job with its jar over {@code SubmitJar}: the submission first, then the jar in chunks of
 * 1 MiB; the same for the command line (over gRPC) and the REST API (in-process).
 */
public final class JarSubmissions {
    /** Bytes of the jar per message. */
    public static final int CHUNK_BYTES = 1 << 20;

    private JarSubmissions() {}

    /**
     * Sends {@code request} (which names the jar's hash and size) and the jar's bytes through the
     * call {@code submitJar} opens; the future completes with the JobManager's answer.
     *
     * @throws IOException if the jar cannot be read (the call is then cancelled with that error)
     */
    public static CompletableFuture<SubmitJobResponse> send(
            Function<StreamObserver<SubmitJobResponse>, StreamObserver<JarSubmission>> submitJar,
            SubmitJobRequest request, Path jar) throws IOException {
        CompletableFuture<SubmitJobResponse> answer = new CompletableFuture<>();
        StreamObserver<JarSubmission> upload = submitJar.apply(new StreamObserver<>() {
            @Override
            public void onNext(SubmitJobResponse value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable error) {
                answer.completeExceptionally(error);
            }

            @Override
            public void onCompleted() {
                if (!answer.isDone()) {
                    answer.completeExceptionally(new IllegalStateException("the JobManager answered nothing"));
                }
            }
        });
        upload.onNext(JarSubmission.newBuilder().setSubmission(request).build());
        try (InputStream in = Files.newInputStream(jar)) {
            byte[] buffer = new byte[CHUNK_BYTES];
            for (int n = in.readNBytes(buffer, 0, buffer.length); n > 0 && !answer.isDone();
                    n = in.readNBytes(buffer, 0, buffer.length)) {
                upload.onNext(JarSubmission.newBuilder().setData(ByteString.copyFrom(buffer, 0, n)).build());
            }
        } catch (IOException e) {
            upload.onError(e);
            throw e;
        }
        upload.onCompleted();
        return answer;
    }
}
