package io.duraflow.jobmanager;

import com.google.protobuf.ByteString;
import io.duraflow.rpc.proto.ArtifactChunk;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.io.IOException;
import java.io.InputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TaskManager's download of a job's jar ({@code FetchArtifact}), sent only as fast as the
 * call takes it: the next chunk is read from the stored copy only while the call {@linkplain
 * ServerCallStreamObserver#isReady() is ready}, so the JobManager holds about one chunk per
 * fetching TaskManager. Sending every chunk at once queued the whole jar in the JobManager's direct
 * memory once per TaskManager: 4 TaskManagers fetching a 250 MB jar (the limit is 256 MB) ran a
 * local cluster's JobManager out of its 477 MB of direct memory, and every fetch failed.
 *
 * <p>gRPC runs the ready and cancel handlers one at a time on the call's executor, never
 * together, so the fields need no lock.
 */
final class JobJarDownload implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(JobJarDownload.class);

    private final InputStream in;
    private final ServerCallStreamObserver<ArtifactChunk> call;
    /** What the error messages call the jar: its job and hash. */
    private final String description;
    private final byte[] buffer;
    private boolean done;

    private JobJarDownload(InputStream in, ServerCallStreamObserver<ArtifactChunk> call, String description,
            int chunkBytes) {
        this.in = in;
        this.call = call;
        this.description = description;
        this.buffer = new byte[chunkBytes];
    }

    /**
     * Sends {@code in} through {@code call} in chunks of {@code chunkBytes}, from the call's ready
     * handler, and closes it at the end, on an error or when the call is cancelled. Called from the
     * service method, before it returns (gRPC takes handlers only then).
     */
    static void start(InputStream in, ServerCallStreamObserver<ArtifactChunk> call, String description,
            int chunkBytes) {
        JobJarDownload download = new JobJarDownload(in, call, description, chunkBytes);
        call.setOnCancelHandler(download::cancelled);
        call.setOnReadyHandler(download);
    }

    /** The call can take more: chunks go until it cannot, or the jar ends. */
    @Override
    public void run() {
        while (!done && call.isReady()) {
            int n;
            try {
                n = in.readNBytes(buffer, 0, buffer.length);
            } catch (IOException e) {
                finish();
                call.onError(Status.UNAVAILABLE.withDescription("cannot read " + description + ": " + e.getMessage())
                        .asRuntimeException());
                return;
            }
            if (n == 0) {
                finish();
                call.onCompleted();
                return;
            }
            call.onNext(ArtifactChunk.newBuilder().setData(ByteString.copyFrom(buffer, 0, n)).build());
        }
    }

    private void cancelled() {
        if (!done) {
            LOG.info("The download of {} was cancelled by the TaskManager", description);
            finish();
        }
    }

    private void finish() {
        done = true;
        try {
            in.close();
        } catch (IOException e) {
            LOG.warn("Cannot close {}: {}", description, e.toString());
        }
    }
}
