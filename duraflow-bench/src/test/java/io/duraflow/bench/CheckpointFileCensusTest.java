package io.duraflow.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointFileCensusTest {
    private static final long T = 1_700_000_000_000L;

    @TempDir
    Path root;

    @Test
    void filesUnderAChkDirectoryBelongToItsCheckpointRule1() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        file("job/chk-1/private-a", 100, T - 5_000);
        CheckpointFileCensus.Created created = census().perCheckpoint().get(0);
        assertThat(created.checkpointId()).isEqualTo(1);
        assertThat(created.files()).isEqualTo(2);
        assertThat(created.bytes()).isEqualTo(110);
        assertThat(created.sharedFiles()).isZero();
    }

    @Test
    void aCheckpointWithoutMetadataIsNotReportedRule2() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        file("job/chk-2/private-a", 100, T + 500);
        assertThat(census().perCheckpoint()).extracting(CheckpointFileCensus.Created::checkpointId).containsExactly(1L);
    }

    @Test
    void sharedFilesBelongToTheFirstCheckpointCompletedAtOrAfterThemRule3() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        file("job/chk-2/_metadata", 10, T + 1_000);
        file("job/shared/before-1", 1_000, T - 300);
        file("job/shared/same-ms-as-1", 2_000, T);
        file("job/shared/between", 4_000, T + 1);
        file("job/taskowned/between", 8_000, T + 999);
        file("job/shared/after-the-last", 16_000, T + 1_001);
        var created = census().perCheckpoint();
        assertThat(created).containsExactly(
                new CheckpointFileCensus.Created(1, 3, 3_010, 2, 3_000),
                new CheckpointFileCensus.Created(2, 3, 12_010, 1, 4_000));
    }

    @Test
    void aFileDeletedAfterAScanIsStillCounted() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        Path shared = file("job/shared/sst", 1_000, T - 1);
        try (CheckpointFileCensus census = CheckpointFileCensus.start(root)) {
            org.awaitility.Awaitility.await().until(() -> census.scans() > 0);
            Files.delete(shared);
            census.close();
            assertThat(census.perCheckpoint()).containsExactly(new CheckpointFileCensus.Created(1, 2, 1_010, 1, 1_000));
        }
    }

    @Test
    void summaryTakesMediansOverCheckpoints() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        file("job/chk-2/_metadata", 10, T + 1_000);
        file("job/chk-3/_metadata", 10, T + 2_000);
        file("job/shared/a", 90, T + 500);
        file("job/shared/b", 90, T + 1_500);
        file("job/shared/c", 90, T + 1_600);
        CheckpointFileCensus.Summary summary = census().summary();
        assertThat(summary.checkpoints()).isEqualTo(3);
        assertThat(summary.medianFiles()).isEqualTo(2);
        assertThat(summary.maxFiles()).isEqualTo(3);
        assertThat(summary.medianBytes()).isEqualTo(100);
        assertThat(summary.maxBytes()).isEqualTo(190);
        assertThat(summary.totalFiles()).isEqualTo(6);
    }

    private CheckpointFileCensus census() throws Exception {
        CheckpointFileCensus census = CheckpointFileCensus.start(root);
        census.close();
        return census;
    }

    private Path file(String relative, int bytes, long modifiedMillis) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[bytes]);
        Files.setLastModifiedTime(file, FileTime.fromMillis(modifiedMillis));
        return file;
    }
}
