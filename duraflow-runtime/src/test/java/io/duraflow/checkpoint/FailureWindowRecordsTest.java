package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.rpc.proto.CheckpointFailureWindow;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FailureWindowRecordsTest {
    private final FileSystem fs = LocalFileSystem.INSTANCE;
    private final AtomicBoolean leading = new AtomicBoolean(true);

    @TempDir
    Path tmp;

    private FsPath directory() {
        return FsPath.of(tmp.resolve("checkpoints"));
    }

    private FailureWindowRecords records() {
        return new FailureWindowRecords(fs, directory(), "job-1", leading::get);
    }

    @Test
    void theFirstStartIsRecordedOnceAsGenerationZeroInTheFramedLayout() throws Exception {
        assertThat(records().startOrRecord(1_000)).isEqualTo(1_000);
        assertThat(records().startOrRecord(9_000)).as("a later leader reads it").isEqualTo(1_000);

        byte[] bytes = fs.readFile(directory().resolve("failure-window-0000000000000000000"));
        ByteBuffer header = ByteBuffer.wrap(bytes);
        byte[] magic = new byte[4];
        header.get(magic);
        assertThat(new String(magic, StandardCharsets.US_ASCII)).isEqualTo("DFFW");
        assertThat(header.getInt()).as("version").isEqualTo(1);
        assertThat(header.getInt()).as("payload length").isEqualTo(bytes.length - 16);
        header.getInt();
        byte[] payload = new byte[bytes.length - 16];
        header.get(payload);
        assertThat(CheckpointFailureWindow.parseFrom(payload)).isEqualTo(CheckpointFailureWindow.newBuilder()
                .setJobId("job-1").setGeneration(0).setStartMs(1_000).build());
    }

    @Test
    void aRestartIsTheNextGenerationAndTheOlderOnesGo() throws Exception {
        records().startOrRecord(1_000);
        records().recordRestart(21_000);
        records().recordRestart(41_000);

        assertThat(records().latest()).isEqualTo(new FailureWindowRecords.Window(2, 41_000));
        assertThat(records().startOrRecord(50_000)).isEqualTo(41_000);
        assertThat(fs.list(directory())).hasSize(1);
    }

    @Test
    void anUnreadableLatestRecordFallsBackToTheOneBeforeAndIsNeverOverwritten() throws Exception {
        records().startOrRecord(1_000);
        fs.writeFile(records().file(1), new byte[] {1, 2, 3}, WriteMode.EXCLUSIVE);

        assertThat(records().latest()).isEqualTo(new FailureWindowRecords.Window(0, 1_000));
        assertThatThrownBy(() -> FailureWindowRecords.FRAMING.unframe(records().file(1), new byte[] {1, 2, 3}))
                .hasMessageContaining("failure-window-0000000000000000001").hasMessageContaining("torn");
        records().recordRestart(5_000);
        assertThat(records().latest()).isEqualTo(new FailureWindowRecords.Window(2, 5_000));
    }

    @Test
    void aJobManagerThatNoLongerLeadsRecordsNothing() throws Exception {
        leading.set(false);
        assertThat(records().startOrRecord(1_000)).as("the restore goes on").isEqualTo(1_000);
        assertThat(fs.listIfExists(directory())).isEmpty();
        records().startOrRecord(500);
        assertThatThrownBy(() -> records().recordRestart(2_000))
                .isInstanceOf(CompletedCheckpointStore.NotLeaderException.class);
        assertThat(fs.listIfExists(directory())).isEmpty();
    }

    @Test
    void theCompletedStoreIgnoresTheRecordsAndItsDiscardRemovesThem() throws Exception {
        FileSystemCompletedCheckpointStore store = new FileSystemCompletedCheckpointStore(fs, fs, directory(),
                "job-1", 1, leading::get);
        assertThat(store.failureWindowStart(1_000)).isEqualTo(1_000);
        store.recordFailureWindowRestart(2_000);
        assertThat(store.recover()).isEmpty();
        assertThat(store.recoveryWarnings()).isEmpty();
        assertThat(store.failureWindowStart(3_000)).isEqualTo(2_000);

        store.discard();

        assertThat(fs.exists(directory())).isFalse();
    }
}
