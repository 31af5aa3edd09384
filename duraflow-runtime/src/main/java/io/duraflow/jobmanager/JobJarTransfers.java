package io.duraflow.jobmanager;

import io.duraflow.artifact.JobJar;
import io.duraflow.config.JobManagerOptions;
import io.duraflow.jobmanager.dispatcher.JobDirectories;
import io.duraflow.jobstore.JobIds;
import io.duraflow.jobstore.JobJarRef;
import io.duraflow.rpc.proto.ArtifactChunk;
import io.duraflow.rpc.proto.FetchArtifactRequest;
import io.duraflow.rpc.proto.JarSubmission;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jobs' jars over gRPC: a client's upload with its submission ({@code SubmitJar}), received into a
 * local file and checked against the submission's size, hash and {@code jobmanager.artifact.max-size}
 * before the dispatcher sees it; and a TaskManager's download ({@code FetchArtifact}), read from
 * the job's directory in the HA storage, so any leader serves the jars of every job it runs.
 */
final class JobJarTransfers {
    private static final Logger LOG = LoggerFactory.getLogger(JobJarTransfers.class);
    /** Bytes per message of a download. */
    static final int CHUNK_BYTES = 1 << 20;

    private JobJarTransfers() {}

    /** Receives one {@code SubmitJar} call. */
    static StreamObserver<JarSubmission> upload(JobManagerRunner runner, StreamObserver<SubmitJobResponse> response) {
        return new Upload(runner, response);
    }

    private static final class Upload implements StreamObserver<JarSubmission> {
        private final JobManagerRunner runner;
        private final StreamObserver<SubmitJobResponse> response;
        private final MessageDigest digest = JobJar.newDigest();
        private SubmitJobRequest request;
        private Path file;
        private OutputStream out;
        private long received;
        private boolean failed;

        Upload(JobManagerRunner runner, StreamObserver<SubmitJobResponse> response) {
            this.runner = runner;
            this.response = response;
        }

        @Override
        public void onNext(JarSubmission part) {
            if (failed) {
                return;
            }
            try {
                if (request == null) {
                    begin(part);
                } else if (part.hasData()) {
                    received += part.getData().size();
                    if (received > request.getArtifact().getSize()) {
                        throw invalid("more bytes than the " + request.getArtifact().getSize() + " it announced");
                    }
                    part.getData().writeTo(out);
                    digest.update(part.getData().asReadOnlyByteBuffer());
                } else {
                    throw invalid("a second submission in one upload");
                }
            } catch (StatusRuntimeException e) {
                fail(e);
            } catch (IOException e) {
                fail(Status.UNAVAILABLE.withDescription("cannot receive jar " + request.getArtifact().getFileName()
                        + ": " + e.getMessage()).asRuntimeException());
            }
        }

        private void begin(JarSubmission part) throws IOException {
            if (!part.hasSubmission() || !part.getSubmission().hasArtifact()) {
                throw Status.INVALID_ARGUMENT.withDescription("a jar upload starts with its submission and the jar's"
                        + " hash and size").asRuntimeException();
            }
            request = part.getSubmission();
            long max = runner.config().get(JobManagerOptions.ARTIFACT_MAX_SIZE).bytes();
            if (request.getArtifact().getSize() > max) {
                throw invalid("it has " + request.getArtifact().getSize() + " bytes, above "
                        + JobManagerOptions.ARTIFACT_MAX_SIZE.key() + " (" + max + " bytes): make the jar smaller"
                        + " (the API is provided by the cluster) or raise the option on the JobManager");
            }
            Path directory = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
                    "duraflow-jar-uploads"));
            file = Files.createTempFile(directory, "upload-", ".jar");
            out = Files.newOutputStream(file);
        }

        private StatusRuntimeException invalid(String why) {
            return Status.INVALID_ARGUMENT.withDescription("jar " + request.getArtifact().getFileName() + " of job class "
                    + request.getJobClass() + " is refused: " + why).asRuntimeException();
        }

        @Override
        public void onError(Throwable error) {
            failed = true;
            cleanUp();
        }

        @Override
        public void onCompleted() {
            if (failed) {
                return;
            }
            if (request == null) {
                fail(Status.INVALID_ARGUMENT.withDescription("an empty jar upload").asRuntimeException());
                return;
            }
            try {
                out.close();
                String sha256 = HexFormat.of().formatHex(digest.digest());
                if (received != request.getArtifact().getSize()) {
                    throw invalid("it arrived with " + received + " bytes, not the " + request.getArtifact().getSize()
                            + " it announced");
                }
                if (!sha256.equals(request.getArtifact().getSha256())) {
                    throw invalid("its bytes do not match its SHA-256 (" + request.getArtifact().getSha256()
                            + "), found " + sha256);
                }
            } catch (StatusRuntimeException e) {
                fail(e);
                return;
            } catch (IOException e) {
                fail(Status.UNAVAILABLE.withDescription("cannot receive jar " + request.getArtifact().getFileName()
                        + ": " + e.getMessage()).asRuntimeException());
                return;
            }
            Path upload = file;
            JobManagerServices.answerAsync(runner.mainThread(), new StreamObserver<>() {
                @Override
                public void onNext(SubmitJobResponse value) {
                    response.onNext(value);
                }

                @Override
                public void onError(Throwable t) {
                    cleanUp();
                    response.onError(t);
                }

                @Override
                public void onCompleted() {
                    cleanUp();
                    response.onCompleted();
                }
            }, () -> runner.dispatcher().submit(request, upload));
        }

        private void fail(StatusRuntimeException error) {
            failed = true;
            cleanUp();
            response.onError(error);
        }

        /** The upload file goes, unless the dispatcher moved it into its place. */
        private void cleanUp() {
            try {
                if (out != null) {
                    out.close();
                }
                if (file != null) {
                    Files.deleteIfExists(file);
                }
            } catch (IOException e) {
                LOG.warn("Cannot delete the upload {}: {}", file, e.toString());
            }
        }
    }

    /**
     * Sends a job's jar to a TaskManager, from the job's directory in the HA storage, as fast as
     * the TaskManager takes it ({@link JobJarDownload}).
     */
    static void download(JobDirectories directories, FetchArtifactRequest request,
            StreamObserver<ArtifactChunk> response) {
        if (!JobIds.isValid(request.getJobId())) {
            response.onError(Status.INVALID_ARGUMENT.withDescription("invalid job id '" + request.getJobId() + "'")
                    .asRuntimeException());
            return;
        }
        String sha256 = request.getSha256();
        try {
            new JobJarRef(sha256, "", 0);
        } catch (IllegalArgumentException e) {
            response.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
            return;
        }
        InputStream in;
        try {
            in = directories.fileSystem().open(directories.artifactDirectory(request.getJobId()).resolve(sha256 + ".jar"));
        } catch (NoSuchFileException e) {
            response.onError(Status.NOT_FOUND.withDescription("job " + request.getJobId() + " has no jar " + sha256
                    + " (it ended and was cleaned up, or never had one)").asRuntimeException());
            return;
        } catch (IOException e) {
            response.onError(Status.UNAVAILABLE.withDescription("cannot read the jar of job " + request.getJobId()
                    + ": " + e.getMessage()).asRuntimeException());
            return;
        }
        JobJarDownload.start(in, (ServerCallStreamObserver<ArtifactChunk>) response,
                "the jar " + sha256 + " of job " + request.getJobId(), CHUNK_BYTES);
    }
}
