package io.duraflow.taskmanager.task.streaming;

import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.taskmanager.task.StreamEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The directory of one streaming task attempt's local state (state backends that keep files
 * locally work under it), inside the TaskManager's {@link StreamEnvironment#localStateDirectory}.
 * Task thread only.
 */
final class LocalStateDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(LocalStateDirectory.class);

    private LocalStateDirectory() {}

    /** The attempt's own directory: a retried attempt never meets its predecessor's files. */
    static Path of(StreamEnvironment streaming, AttemptId attempt) {
        return streaming.localStateDirectory().resolve(attempt.getJobId() + "-v" + attempt.getVertex() + "-s"
                + attempt.getSubtask() + "-a" + attempt.getAttempt());
    }

    /**
     * The backends deleted their own directories when disposed; this removes the attempt's (and
     * anything left). A failure is logged: the TaskManager sweeps the directory when it starts.
     */
    static void delete(Path directory, String taskName) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("Task {}: could not delete its local state directory {}", taskName, directory, e);
        }
    }
}
