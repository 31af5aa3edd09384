package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CoordinatorHarness.SOURCE_0;
import static io.duraflow.checkpoint.CoordinatorHarness.SOURCE_1;
import static io.duraflow.checkpoint.CoordinatorHarness.SUM_0;
import static io.duraflow.checkpoint.CoordinatorHarness.SUM_1;
import static io.duraflow.checkpoint.CoordinatorHarness.config;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.IncrementalKeyedStateHandle.PrivateFile;
import io.duraflow.state.IncrementalKeyedStateHandle.SharedFile;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shared-state registry through the coordinator, with incremental snapshots the way the
 * RocksDB backend takes them ({@link Backend}): SST files under {@code shared/} reused across
 * checkpoints, a private MANIFEST under {@code chk-<n>/}. After every step the job's directory
 * holds exactly what the retained checkpoints refer to ({@link CheckpointDirectoryScan}).
 */
class IncrementalCheckpointFilesTest {
    private static final long INTERVAL = 100;
    private static final long TIMEOUT = 10_000;

    @TempDir
    Path tmp;

    /**
     * A keyed task's incremental backend: it reuses only the SST files of the last checkpoint it
     * was told completed (or restored from), and uploads every other live SST file under a new
     * name, as the RocksDB backend does.
     */
    static final class Backend {
        final CoordinatorHarness h;
        final CheckpointTask task;
        final String id;
        final Map<Long, Map<String, FsPath>> filesOf = new HashMap<>();
        Map<String, FsPath> confirmed = new HashMap<>();

        Backend(CoordinatorHarness h, CheckpointTask task, String id) {
            this.h = h;
            this.task = task;
            this.id = id;
        }

        TaskStateSnapshot snapshot(long checkpointId, List<Integer> liveSsts) {
            List<SharedFile> shared = new ArrayList<>();
            Map<String, FsPath> files = new HashMap<>();
            for (int sst : liveSsts) {
                String name = String.format("%06d.sst", sst);
                FsPath file = confirmed.get(name);
                boolean reused = file != null;
                if (!reused) {
                    file = write(h.directories.shared().resolve(id + "-" + checkpointId + "-" + name), 100);
                }
                files.put(name, file);
                shared.add(new SharedFile(name, new FileSegmentHandle(file, 0, 100), reused));
            }
            filesOf.put(checkpointId, files);
            FsPath manifest = write(h.directories.checkpoint(checkpointId).resolve(id + "-MANIFEST"), 7);
            IncrementalKeyedStateHandle handle = new IncrementalKeyedStateHandle(id, checkpointId,
                    KeyGroupRange.ofOperatorIndex(CoordinatorHarness.MAX_PARALLELISM, 2, task.subtask()), shared,
                    List.of(new PrivateFile("MANIFEST", new FileSegmentHandle(manifest, 0, 7))),
                    new InlineStateHandle(new byte[] {1, 2, 3}));
            return new TaskStateSnapshot(Map.of("sum", new OperatorSubtaskState(List.of(handle), List.of())));
        }

        void ack(long checkpointId, Integer... liveSsts) {
            h.coordinator.acknowledge(task, checkpointId, snapshot(checkpointId, List.of(liveSsts)),
                    CheckpointMetrics.NONE);
        }

        void notifyComplete(long checkpointId) {
            confirmed = new HashMap<>(filesOf.get(checkpointId));
        }

        private FsPath write(FsPath file, int length) {
            try {
                h.fs.writeFile(file, new byte[length], WriteMode.OVERWRITE);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return file;
        }
    }

    private static CoordinatorHarness started(Path root, int retained) {
        CoordinatorHarness h = new CoordinatorHarness(root, config(INTERVAL, TIMEOUT, 0, 1, 5, retained));
        h.coordinator.startPeriodic();
        return h;
    }

    private static void sources(CoordinatorHarness h, long checkpointId) {
        h.ack(SOURCE_0, checkpointId);
        h.ack(SOURCE_1, checkpointId);
    }

    /** Triggers the next checkpoint, acknowledges it with these live SST files, and tells the backends. */
    private static void checkpoint(CoordinatorHarness h, long id, Backend b0, List<Integer> live0, Backend b1,
            List<Integer> live1) {
        h.advance(INTERVAL);
        assertThat(h.tasks.triggers.get(h.tasks.triggers.size() - 1).checkpointId()).isEqualTo(id);
        sources(h, id);
        b0.ack(id, live0.toArray(Integer[]::new));
        b1.ack(id, live1.toArray(Integer[]::new));
        h.settle();
        assertThat(h.store.latest().orElseThrow().checkpointId()).as("checkpoint %d completed", id).isEqualTo(id);
        b0.notifyComplete(id);
        b1.notifyComplete(id);
    }

    /** Exactly what the retained checkpoints refer to is on disk: no orphan, nothing missing. */
    private static void assertExactlyTheRetainedFiles(CoordinatorHarness h) throws IOException {
        h.settle();
        CheckpointDirectoryScan.Result scan = CheckpointDirectoryScan.scan(h.fs, h.directories, h.store.retained());
        assertThat(scan.describe()).as("orphans and missing files").isEmpty();
        Set<FsPath> expectedShared = new TreeSet<>(java.util.Comparator.comparing(FsPath::toString));
        for (CompletedCheckpoint retained : h.store.retained()) {
            for (FsPath file : StateFileRegistry.filesOf(retained)) {
                if (CheckpointFileCleaner.isUnder(file, h.directories.shared())) {
                    expectedShared.add(file);
                }
            }
        }
        assertThat(CheckpointDirectoryScan.filesUnder(h.fs, h.directories.shared()))
                .containsExactlyElementsOf(expectedShared);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aSharedFileIsDeletedExactlyWhenTheLastRetainedCheckpointUsingItIsSubsumed(int retained) throws IOException {
        CoordinatorHarness h = started(tmp, retained);
        Backend b0 = new Backend(h, SUM_0, "b0");
        Backend b1 = new Backend(h, SUM_1, "b1");
        List<List<Integer>> live0 = List.of(List.of(1, 2), List.of(1, 2, 3), List.of(2, 3, 4), List.of(4, 5),
                List.of(4, 5, 6));
        List<List<Integer>> live1 = List.of(List.of(1), List.of(1, 2), List.of(1, 2), List.of(3), List.of(3));
        Set<FsPath> everUploaded = new HashSet<>();

        for (int id = 1; id <= 5; id++) {
            checkpoint(h, id, b0, live0.get(id - 1), b1, live1.get(id - 1));
            everUploaded.addAll(b0.filesOf.get((long) id).values());
            everUploaded.addAll(b1.filesOf.get((long) id).values());

            assertThat(h.store.retained()).hasSize(Math.min(id, retained));
            assertExactlyTheRetainedFiles(h);
        }
        // b0's 000001.sst was uploaded once by checkpoint 1 and reused by 2: it lived exactly while 1 or 2 was retained.
        FsPath first = b0.filesOf.get(1L).get("000001.sst");
        assertThat(b0.filesOf.get(2L).get("000001.sst")).isEqualTo(first);
        assertThat(h.exists(first)).isFalse();
        assertThat(everUploaded).hasSize(6 + 3); // every SST uploaded once: nothing was uploaded twice
    }

    @Test
    void anAbortedCheckpointLosesTheFilesItUploadedButNotTheSharedFilesItReused() throws IOException {
        CoordinatorHarness h = started(tmp, 1);
        Backend b0 = new Backend(h, SUM_0, "b0");
        Backend b1 = new Backend(h, SUM_1, "b1");
        checkpoint(h, 1, b0, List.of(1, 2), b1, List.of(1));
        h.advance(INTERVAL);
        sources(h, 2);
        b0.ack(2, 1, 2, 3);
        FsPath uploadedBy2 = b0.filesOf.get(2L).get("000003.sst");
        h.settle();

        h.coordinator.decline(SUM_1, 2, CheckpointFailureReason.DECLINED, "not ready");
        h.settle();

        assertThat(h.exists(uploadedBy2)).isFalse();
        assertThat(h.exists(b0.filesOf.get(1L).get("000001.sst"))).isTrue();
        assertExactlyTheRetainedFiles(h);

        // The backend was not told checkpoint 2 completed, so checkpoint 3 uploads 000003.sst again.
        checkpoint(h, 3, b0, List.of(1, 2, 3), b1, List.of(1));
        assertThat(b0.filesOf.get(3L).get("000003.sst")).isNotEqualTo(uploadedBy2);
        assertExactlyTheRetainedFiles(h);
    }

    @Test
    void aNewLeaderRebuildsTheReferencesFromTheRetainedCheckpointsAndDeletesWhatTheOldLeadersPendingOneUploaded()
            throws IOException {
        CoordinatorHarness old = started(tmp, 2);
        Backend b0 = new Backend(old, SUM_0, "b0");
        Backend b1 = new Backend(old, SUM_1, "b1");
        checkpoint(old, 1, b0, List.of(1, 2), b1, List.of(1));
        checkpoint(old, 2, b0, List.of(2, 3), b1, List.of(1, 2));
        old.advance(INTERVAL);
        sources(old, 3);
        b0.ack(3, 3, 4); // uploads 000004.sst for a checkpoint that will never complete
        old.settle();
        FsPath orphan = b0.filesOf.get(3L).get("000004.sst");
        assertThat(old.exists(orphan)).isTrue();

        // The old leader dies; a new one reads the store and restores the job from checkpoint 2.
        CoordinatorHarness h = new CoordinatorHarness(tmp, config(INTERVAL, TIMEOUT, 0, 1, 5, 2));
        var restored = h.coordinator.restoreLatest();
        h.settle();

        assertThat(restored.join().orElseThrow().checkpointId()).isEqualTo(2);
        assertThat(h.exists(orphan)).isFalse();
        assertThat(h.exists(h.directories.checkpoint(3))).isFalse();
        assertExactlyTheRetainedFiles(h);

        // The tasks restore from checkpoint 2 and reuse its files; subsuming 1 and 2 deletes exactly theirs.
        Backend r0 = new Backend(h, SUM_0, "r0");
        Backend r1 = new Backend(h, SUM_1, "r1");
        r0.confirmed = new HashMap<>(b0.filesOf.get(2L));
        r1.confirmed = new HashMap<>(b1.filesOf.get(2L));
        h.coordinator.startPeriodic();
        checkpoint(h, 3, r0, List.of(3, 5), r1, List.of(2));
        assertExactlyTheRetainedFiles(h);
        assertThat(h.exists(b0.filesOf.get(1L).get("000002.sst"))).isTrue(); // checkpoint 2 (retained) uses it
        checkpoint(h, 4, r0, List.of(5), r1, List.of(2));
        assertExactlyTheRetainedFiles(h);
        assertThat(h.exists(b0.filesOf.get(1L).get("000002.sst"))).isFalse();
        assertThat(h.exists(b1.filesOf.get(2L).get("000002.sst"))).isTrue(); // still reused by 3 and 4
    }

    @Test
    void aSnapshotReusingASharedFileNoCheckpointKnowsFailsTheCheckpointAndTheNextOneSucceeds() throws IOException {
        CoordinatorHarness h = started(tmp, 1);
        Backend b0 = new Backend(h, SUM_0, "b0");
        Backend b1 = new Backend(h, SUM_1, "b1");
        checkpoint(h, 1, b0, List.of(1), b1, List.of(1));
        FsPath gone = b0.filesOf.get(1L).get("000001.sst");
        // Checkpoint 2 no longer has 000001.sst (compacted); b0's notification of 2 is lost.
        h.advance(INTERVAL);
        sources(h, 2);
        b0.ack(2, 2);
        b1.ack(2, 1);
        h.settle();
        b1.notifyComplete(2);
        assertThat(h.exists(gone)).isFalse();

        // b0 still bases its snapshots on checkpoint 1 and reuses 000001.sst, which is deleted.
        h.advance(INTERVAL);
        sources(h, 3);
        b1.ack(3, 1);
        b0.ack(3, 1, 3);
        FsPath uploadedBy3 = b0.filesOf.get(3L).get("000003.sst");
        h.settle();

        assertThat(h.store.latest().orElseThrow().checkpointId()).isEqualTo(2);
        CheckpointStats failed = h.coordinator.history().get(2);
        assertThat(failed.checkpointId()).isEqualTo(3);
        assertThat(failed.status()).isEqualTo(CheckpointStats.Status.FAILED);
        assertThat(failed.failure().reason()).isEqualTo(CheckpointFailureReason.MISSING_SHARED_STATE);
        assertThat(failed.failure().task()).isEqualTo(SUM_0.toString());
        assertThat(failed.failure().message()).contains(gone.toString()).contains("no retained or pending checkpoint");
        assertThat(h.coordinator.failureManager().continuousFailures()).isEqualTo(1);
        assertThat(h.tasks.aborted.get(3L)).contains(SUM_0);
        assertThat(h.exists(uploadedBy3)).isFalse();
        assertExactlyTheRetainedFiles(h);

        // The lost notification arrives late; the next snapshot reuses checkpoint 2's files and completes.
        b0.notifyComplete(2);
        checkpoint(h, 4, b0, List.of(2, 4), b1, List.of(1));
        assertThat(h.coordinator.failureManager().continuousFailures()).isZero();
        assertExactlyTheRetainedFiles(h);
    }

    @Test
    void theHistoryShowsFullAndIncrementalSizeAndTheFilesUploadedAndReused() {
        CoordinatorHarness h = started(tmp, 2);
        Backend b0 = new Backend(h, SUM_0, "b0");
        Backend b1 = new Backend(h, SUM_1, "b1");
        checkpoint(h, 1, b0, List.of(1, 2), b1, List.of(1));
        checkpoint(h, 2, b0, List.of(1, 2, 3), b1, List.of(1, 2));

        CheckpointStats first = h.coordinator.history().get(0);
        CheckpointStats second = h.coordinator.history().get(1);
        // Sources: 10 bytes each; keyed: 100 per SST, 7 per MANIFEST, 3 of metadata; coordinators: 1.
        assertThat(first.stateSize()).isEqualTo(20 + 300 + 2 * 10 + 1);
        assertThat(first.checkpointedSize()).isEqualTo(first.stateSize());
        assertThat(first.filesUploaded()).isEqualTo(2 + 3 + 2);
        assertThat(first.filesReused()).isZero();
        assertThat(second.stateSize()).isEqualTo(20 + 500 + 2 * 10 + 1);
        assertThat(second.checkpointedSize()).isEqualTo(20 + 200 + 2 * 10 + 1);
        assertThat(second.filesUploaded()).isEqualTo(2 + 2 + 2);
        assertThat(second.filesReused()).isEqualTo(3);
        assertThat(second.files()).isEqualTo(2 + 5 + 2);
        assertThat(second.directory()).isEqualTo(h.directories.checkpoint(2));
    }
}
