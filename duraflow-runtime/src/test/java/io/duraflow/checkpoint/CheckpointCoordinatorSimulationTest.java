package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FsPath;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A seeded fault simulation: random time steps, acknowledgements, duplicate and late
 * acknowledgements, acknowledgements of earlier attempts, soft and hard declines, tasks that stop
 * running and a JobManager that loses its leadership for a while, with the I/O thread running late.
 * After every step on which everything settled, the invariants hold:
 * <ol>
 *   <li>every file a retained checkpoint refers to exists, with its metadata;</li>
 *   <li>every other file under the job's checkpoint directory, and every {@code chk-<n>}
 *       directory, belongs to a checkpoint in progress: an abort, a subsumption or a late
 *       acknowledgement leaves no file or directory behind;</li>
 *   <li>at most max-concurrent checkpoints are in progress, and completed ids only grow;</li>
 *   <li>the job is told to fail over only after more than the tolerable number of counted failures.</li>
 * </ol>
 */
class CheckpointCoordinatorSimulationTest {
    private static final int MAX_CONCURRENT = 2;
    private static final int TOLERABLE = 2;

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void invariantsHoldAfterEveryStep(long seed) throws Exception {
        Random random = new Random(seed);
        CoordinatorHarness h = new CoordinatorHarness(tmp.resolve("seed-" + seed),
                CoordinatorHarness.config(100, 400, seed % 2 == 0 ? 30 : 0, MAX_CONCURRENT, TOLERABLE, 2));
        h.coordinator.startPeriodic();
        Map<Long, Set<FsPath>> writtenByCheckpoint = new HashMap<>();
        long lastCompleted = 0;
        int failovers = 0;
        for (int step = 0; step < 400; step++) {
            List<Long> inProgress = inProgress(h);
            int action = random.nextInt(100);
            if (action < 30) {
                h.main.advance(random.nextInt(120));
            } else if (action < 70 && !inProgress.isEmpty()) {
                long id = inProgress.get(random.nextInt(inProgress.size()));
                CheckpointTask task = CoordinatorHarness.ALL.get(random.nextInt(4));
                ackWritten(h, task, id, writtenByCheckpoint);
            } else if (action < 74 && !inProgress.isEmpty()) {
                long id = inProgress.get(random.nextInt(inProgress.size()));
                h.coordinator.decline(CoordinatorHarness.SOURCE_1, id, random.nextInt(3) == 0
                        ? CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD
                        : CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT, "simulated");
            } else if (action < 80 && !h.tasks.triggers.isEmpty()) {
                long id = h.tasks.triggers.get(random.nextInt(h.tasks.triggers.size())).checkpointId();
                ackWritten(h, CoordinatorHarness.ALL.get(random.nextInt(4)), id, writtenByCheckpoint);
            } else if (action < 83 && !inProgress.isEmpty()) {
                ackWritten(h, new CheckpointTask(1, random.nextInt(2), 9), inProgress.get(0), writtenByCheckpoint);
            } else if (action < 86) {
                h.tasks.allRunning = random.nextInt(4) != 0;
            } else if (action < 88) {
                h.leading.set(random.nextInt(3) != 0);
            } else {
                h.main.runDue(); // the main thread runs while the I/O thread lags behind
            }
            if (random.nextInt(3) == 0) {
                continue;
            }
            h.settle();

            List<CompletedCheckpoint> retained = h.store.retained();
            for (CompletedCheckpoint checkpoint : retained) {
                assertThat(h.exists(checkpoint.metadataFile())).as("step %d: metadata of %s", step, checkpoint).isTrue();
                for (FsPath file : StateFileRegistry.filesOf(checkpoint)) {
                    assertThat(h.exists(file)).as("step %d: %s of %s", step, file, checkpoint).isTrue();
                }
            }
            Set<FsPath> allowed = new HashSet<>();
            for (CompletedCheckpoint checkpoint : retained) {
                allowed.add(checkpoint.metadataFile());
                allowed.addAll(StateFileRegistry.filesOf(checkpoint));
            }
            for (long id : inProgress(h)) {
                allowed.addAll(writtenByCheckpoint.getOrDefault(id, Set.of()));
            }
            assertThat(filesUnder(h, h.directories.jobDirectory())).as("step %d: files on disk", step)
                    .allSatisfy(file -> assertThat(allowed).contains(file));
            Set<FsPath> allowedDirectories = new HashSet<>();
            retained.forEach(checkpoint -> allowedDirectories.add(checkpoint.directory()));
            inProgress(h).forEach(id -> allowedDirectories.add(h.directories.checkpoint(id)));
            assertThat(h.fs.listIfExists(h.directories.jobDirectory())).as("step %d: checkpoint directories", step)
                    .allSatisfy(status -> assertThat(allowedDirectories).contains(status.path()));
            assertThat(h.coordinator.pendingCount()).isLessThanOrEqualTo(MAX_CONCURRENT);
            if (!retained.isEmpty()) {
                long latest = retained.get(retained.size() - 1).checkpointId();
                assertThat(latest).isGreaterThanOrEqualTo(lastCompleted);
                lastCompleted = latest;
            }
            assertThat(h.coordinator.failureManager().continuousFailures()).isLessThanOrEqualTo(TOLERABLE);
            if (h.jobFailures.size() > failovers) {
                failovers = h.jobFailures.size();
                assertThat(h.jobFailures.get(failovers - 1)).contains("tolerable-failed-checkpoints");
            }
        }
        h.settle();
        assertThat(lastCompleted).as("the simulation completes checkpoints at all").isPositive();
    }

    private static List<Long> inProgress(CoordinatorHarness h) {
        List<Long> ids = new ArrayList<>();
        for (CheckpointStats stats : h.coordinator.history()) {
            if (stats.status() == CheckpointStats.Status.IN_PROGRESS) {
                ids.add(stats.checkpointId());
            }
        }
        return ids;
    }

    private static void ackWritten(CoordinatorHarness h, CheckpointTask task, long id, Map<Long, Set<FsPath>> written) {
        written.computeIfAbsent(id, k -> new HashSet<>()).add(h.stateFile(task, id));
        h.ack(task, id);
    }

    private static List<FsPath> filesUnder(CoordinatorHarness h, FsPath directory) throws IOException {
        List<FsPath> files = new ArrayList<>();
        for (FileStatus status : h.fs.listIfExists(directory)) {
            if (status.isDirectory()) {
                files.addAll(filesUnder(h, status.path()));
            } else {
                files.add(status.path());
            }
        }
        return files;
    }
}
