package io.duraflow.state.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.types.Types;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.backend.IncompatibleStateException;
import io.duraflow.state.backend.OperatorBackendParameters;
import io.duraflow.state.backend.OperatorStateBackend;
import io.duraflow.state.rescale.StateRedistributor;
import io.duraflow.state.storage.CorruptStateException;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RunnableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DefaultOperatorStateBackendTest {
    private static final ListStateDescriptor<String> SPLITS = new ListStateDescriptor<>("splits", Types.STRING);
    private static final ListStateDescriptor<Long> WATERMARKS = new ListStateDescriptor<>("watermarks", Types.LONG);

    @TempDir
    Path dir;

    private FsCheckpointStorage storage(int inlineThreshold) {
        return new FsCheckpointStorage(LocalFileSystem.INSTANCE, CheckpointDirectories.of(FsPath.of(dir), "job"),
                inlineThreshold);
    }

    private static OperatorStateBackend backend(List<OperatorStateHandle> restore) throws IOException {
        return DefaultOperatorStateBackend.restore(new OperatorBackendParameters("source 1/2", restore));
    }

    private List<OperatorStateHandle> snapshot(OperatorStateBackend backend, int inlineThreshold) throws Exception {
        RunnableFuture<List<OperatorStateHandle>> future = backend.snapshot(1, 1, storage(inlineThreshold).streamFactory(1));
        Thread thread = new Thread(future, "async-snapshot");
        thread.start();
        return future.get();
    }

    private static <T> List<T> list(ListState<T> state) {
        List<T> elements = new ArrayList<>();
        state.get().forEach(elements::add);
        return elements;
    }

    @Test
    void splitAndUnionListsAreRestoredWithTheirElements() throws Exception {
        for (int threshold : new int[] {0, 1 << 20}) {
            OperatorStateBackend backend = backend(List.of());
            backend.getListState(SPLITS).addAll(List.of("a", "b", "c"));
            backend.getUnionListState(WATERMARKS).add(42L);
            backend.getListState(new ListStateDescriptor<>("empty", Types.INT));

            List<OperatorStateHandle> handles = snapshot(backend, threshold);
            OperatorStateBackend restored = backend(handles);

            assertThat(restored.stateNames()).containsExactly("empty", "splits", "watermarks");
            assertThat(list(restored.getListState(SPLITS))).containsExactly("a", "b", "c");
            assertThat(list(restored.getUnionListState(WATERMARKS))).containsExactly(42L);
            assertThat(list(restored.getListState(new ListStateDescriptor<>("empty", Types.INT)))).isEmpty();
        }
    }

    @Test
    void aSnapshotHoldsTheListsAsTheyWereAtItsSynchronousPart() throws Exception {
        OperatorStateBackend backend = backend(List.of());
        ListState<String> splits = backend.getListState(SPLITS);
        splits.addAll(List.of("a", "b"));

        RunnableFuture<List<OperatorStateHandle>> future = backend.snapshot(1, 1, storage(0).streamFactory(1));
        splits.update(List.of("z"));
        future.run();

        assertThat(list(backend(future.get()).getListState(SPLITS))).containsExactly("a", "b");
    }

    @Test
    void noStateSnapshotsToNothingAndUndeclaredRestoredListsAreKept() throws Exception {
        assertThat(snapshot(backend(List.of()), 0)).isEmpty();

        OperatorStateBackend backend = backend(List.of());
        backend.getListState(SPLITS).add("a");
        OperatorStateBackend untouched = backend(snapshot(backend, 0));
        OperatorStateBackend later = backend(snapshot(untouched, 0));

        assertThat(list(later.getListState(SPLITS))).containsExactly("a");
    }

    @Test
    void declaringAListAgainDifferentlyIsAnErrorNamingIt() throws Exception {
        OperatorStateBackend backend = backend(List.of());
        ListState<String> splits = backend.getListState(SPLITS);
        assertThat(backend.getListState(SPLITS)).isSameAs(splits);
        assertThatThrownBy(() -> backend.getUnionListState(SPLITS)).isInstanceOf(IncompatibleStateException.class)
                .hasMessageContaining("'splits'").hasMessageContaining("union");
        splits.add("x");

        OperatorStateBackend restored = backend(snapshot(backend, 0));
        assertThatThrownBy(() -> restored.getUnionListState(SPLITS)).isInstanceOf(IncompatibleStateException.class)
                .hasMessageContaining("'splits'").hasMessageContaining("restored as a split list of string");
        assertThatThrownBy(() -> restored.getListState(new ListStateDescriptor<>("splits", Types.LONG)))
                .isInstanceOf(IncompatibleStateException.class).hasMessageContaining("long");
    }

    @Test
    void aCorruptElementIsAnErrorNamingTheFileAndOffset() throws Exception {
        OperatorStateBackend backend = backend(List.of());
        backend.getListState(SPLITS).addAll(List.of("first", "second"));
        List<OperatorStateHandle> handles = snapshot(backend, 0);
        OperatorStateHandle handle = handles.get(0);
        FileSegmentHandle file = (FileSegmentHandle) handle.stream();
        long offset = handle.lists().get("splits").elementOffsets()[1];
        try (RandomAccessFile raf = new RandomAccessFile(file.file().toLocalPath().toFile(), "rw")) {
            raf.seek(offset + 9);
            raf.write('X');
        }

        assertThatThrownBy(() -> backend(handles)).isInstanceOf(CorruptStateException.class)
                .hasMessageContaining(file.file().toString()).hasMessageContaining("offset " + offset)
                .hasMessageContaining("checksum");
    }

    @Test
    void rescalingDealsSplitElementsOutOnceAndGivesUnionListsToEveryone() throws Exception {
        // three old instances with 4, 1 and 0 splits, each with one union element
        List<OperatorSubtaskState> old = new ArrayList<>();
        List<String> allSplits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            OperatorStateBackend backend = backend(List.of());
            for (int s = 0; s < (i == 0 ? 4 : i == 1 ? 1 : 0); s++) {
                backend.getListState(SPLITS).add("split-" + i + "-" + s);
                allSplits.add("split-" + i + "-" + s);
            }
            backend.getUnionListState(WATERMARKS).add((long) i);
            old.add(new OperatorSubtaskState(List.of(), snapshot(backend, i == 0 ? 0 : 1 << 20)));
        }

        for (int parallelism : new int[] {1, 2, 3, 5}) {
            List<OperatorSubtaskState> assigned = StateRedistributor.redistribute(old, parallelism, 128);
            List<String> restoredSplits = new ArrayList<>();
            List<Integer> counts = new ArrayList<>();
            for (OperatorSubtaskState state : assigned) {
                OperatorStateBackend backend = backend(state.operatorState());
                List<String> mine = list(backend.getListState(SPLITS));
                restoredSplits.addAll(mine);
                counts.add(mine.size());
                assertThat(list(backend.getUnionListState(WATERMARKS))).containsExactlyInAnyOrder(0L, 1L, 2L);
            }
            assertThat(restoredSplits).as("parallelism %d", parallelism).containsExactlyInAnyOrderElementsOf(allSplits);
            if (parallelism != 3) {
                assertThat(counts.stream().mapToInt(Integer::intValue).max().orElseThrow()
                        - counts.stream().mapToInt(Integer::intValue).min().orElseThrow()).isLessThanOrEqualTo(1);
            } else {
                assertThat(counts).containsExactly(4, 1, 0);
            }
        }
    }
}
