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
        assertThat(created).extracting(CheckpointFileCensus.Created::checkpointId, CheckpointFileCensus.Created::files,
                CheckpointFileCensus.Created::bytes, CheckpointFileCensus.Created::sharedFiles,
                CheckpointFileCensus.Created::sharedBytes, CheckpointFileCensus.Created::taskOwnedFiles,
                CheckpointFileCensus.Created::checkpointDirFiles).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1L, 3, 3_010L, 2, 3_000L, 0, 1),
                org.assertj.core.groups.Tuple.tuple(2L, 3, 12_010L, 1, 4_000L, 1, 1));
    }

    @Test
    void aFileDeletedAfterAScanIsStillCounted() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        Path shared = file("job/shared/sst", 1_000, T - 1);
        try (CheckpointFileCensus census = CheckpointFileCensus.start(root)) {
            org.awaitility.Awaitility.await().until(() -> census.scans() > 0);
            Files.delete(shared);
            census.close();
            assertThat(census.perCheckpoint()).extracting(CheckpointFileCensus.Created::files,
                    CheckpointFileCensus.Created::bytes, CheckpointFileCensus.Created::sharedFiles)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(2, 1_010L, 1));
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

    @Test
    void mergedFilesInSubdirectoriesCountOnceForTheCheckpointThatCreatedThemRule3() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        file("job/chk-2/_metadata", 10, T + 1_000);
        Path across = file("job/shared/subtask-0-4-v2/0f8fad5b-d9cb-469f-a165-70867728950e", 100, T - 10);
        file("job/taskowned/tm-1-r1/1f8fad5b-d9cb-469f-a165-70867728950e", 50, T + 500);
        try (CheckpointFileCensus census = CheckpointFileCensus.start(root)) {
            org.awaitility.Awaitility.await().until(() -> census.scans() > 0);
            Files.write(across, new byte[300]); // appended to by checkpoint 2: modified after chk-1's _metadata
            Files.setLastModifiedTime(across, FileTime.fromMillis(T + 900));
            census.close();
            var created = census.perCheckpoint();
            assertThat(created).extracting(CheckpointFileCensus.Created::files, CheckpointFileCensus.Created::bytes,
                    CheckpointFileCensus.Created::sharedFiles, CheckpointFileCensus.Created::taskOwnedFiles)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(2, 310L, 1, 0),
                            org.assertj.core.groups.Tuple.tuple(2, 60L, 0, 1));
            assertThat(created.get(0).byDirectory()).containsOnly(
                    org.assertj.core.api.Assertions.entry("chk-<n>", 1),
                    org.assertj.core.api.Assertions.entry("shared/subtask-0-4-v2", 1));
        }
    }

    @Test
    void directoryKeysGeneraliseIdsAndSkipTheJobDirectory() {
        assertThat(CheckpointFileCensus.directoryKey("job/chk-12/_metadata")).isEqualTo("chk-<n>");
        assertThat(CheckpointFileCensus.directoryKey(
                "0123456789abcdef0123456789abcdef/shared/job_0123456789abcdef0123456789abcdef_op_fedcba9876543210fedcba9876543210_1_4/x"))
                .isEqualTo("shared/job_<id>_op_<id>_1_4");
        assertThat(CheckpointFileCensus.directoryKey("shared/sst")).isEqualTo("shared");
    }

    @Test
    void spaceComparesBytesOnDiskWithWhatTheRetainedCheckpointsReferTo() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        file("job/shared/merged", 1_000, T - 5);
        file("job/shared/garbage", 490, T - 5);
        file("job/shared/next-checkpoint", 4_000, T + 20);
        file("job/chk-2/private", 4_000, T + 20);
        CheckpointFileCensus census = CheckpointFileCensus.start(CheckpointTree.local(root),
                metadata -> new CheckpointSpace.References(java.util.Set.of(
                        new CheckpointSpace.Segment("job/shared/merged", 0, 400),
                        new CheckpointSpace.Segment("job/shared/merged", 600, 90)), 2), java.util.Map.of());
        census.close();
        var space = census.space();
        assertThat(space).hasSize(1);
        assertThat(space.get(0).diskBytesAtCompletion()).isEqualTo(1_500);
        assertThat(space.get(0).diskBytesAllAtCompletion()).isEqualTo(9_500);
        assertThat(space.get(0).liveBytesAtCompletion()).isEqualTo(500);
        assertThat(space.get(0).amplificationAtCompletion()).isEqualTo(3.0);
        assertThat(space.get(0).liveFilesAtCompletion()).isEqualTo(2);
    }

    @Test
    void aFileTheLatestCheckpointRefersToThatIsNotOnDiskIsMissing() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        file("job/shared/there", 100, T - 5);
        CheckpointFileCensus census = CheckpointFileCensus.start(CheckpointTree.local(root),
                metadata -> new CheckpointSpace.References(java.util.Set.of(
                        new CheckpointSpace.Segment("job/shared/there", 0, 100),
                        new CheckpointSpace.Segment("job/shared/gone", 0, 50)), 1), java.util.Map.of());
        census.close();
        assertThat(census.space()).extracting(CheckpointSpace.SpaceAtCheckpoint::missingFiles).containsExactly(1);
        assertThat(census.spaceSummary().checkpointsMissingFiles()).isEqualTo(1);
    }

    @Test
    void checkpointsTakenWhileTasksFinishedAreLeftOutOfTheSummary() throws Exception {
        file("job/chk-1/_metadata", 10, T);
        file("job/chk-2/_metadata", 10, T + 1_000);
        file("job/chk-3/_metadata", 10, T + 2_000);
        file("job/shared/a", 90, T + 500);
        file("job/shared/b", 90, T + 600);
        CheckpointFileCensus census = CheckpointFileCensus.start(CheckpointTree.local(root),
                metadata -> new CheckpointSpace.References(java.util.Set.of(),
                        metadata.contains("chk-3") ? 1 : 2), java.util.Map.of());
        census.close();
        CheckpointFileCensus.Summary summary = census.summary();
        assertThat(summary.checkpoints()).isEqualTo(2);
        assertThat(summary.finalCheckpoints()).isEqualTo(1);
        assertThat(summary.meanFiles()).isEqualTo(2.0);
        assertThat(summary.meanFilesAll()).isEqualTo(5.0 / 3);
        assertThat(census.space()).extracting(CheckpointSpace.SpaceAtCheckpoint::checkpointId).doesNotContain(3L);
    }

    @Test
    void countersArePerCheckpointDeltas() throws Exception {
        java.util.concurrent.atomic.AtomicLong created = new java.util.concurrent.atomic.AtomicLong(5);
        CheckpointFileCensus census = CheckpointFileCensus.start(CheckpointTree.local(root), null,
                java.util.Map.of("CreateFileOps", created::get));
        org.awaitility.Awaitility.await().until(() -> census.scans() > 0);
        created.set(9);
        file("job/chk-1/_metadata", 10, T);
        long scans = census.scans();
        org.awaitility.Awaitility.await().until(() -> census.scans() > scans + 1);
        census.close();
        assertThat(census.counterDeltas()).containsExactly(
                org.assertj.core.api.Assertions.entry(1L, java.util.Map.of("CreateFileOps", 4L)));
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

    @Test
    void aMergedFileAppendedToAfterTheMetadataCountsWithItsSizeAtCompletion() {
        long completedAt = 1_000;
        CheckpointSpace.Present untouched = new CheckpointSpace.Present(5_000, 500, 900, 5_000);
        CheckpointSpace.Present appended = new CheckpointSpace.Present(9_000, 500, 1_050, 5_000);
        CheckpointSpace.Present appendedAfterALateSegment = new CheckpointSpace.Present(9_000, 500, 1_050, 5_000);
        CheckpointSpace.Present firstSeenNow = new CheckpointSpace.Present(9_000, 1_050, 1_050, -1);

        assertThat(CheckpointSpace.sizeAtCompletion(untouched, completedAt, 4_000L)).isEqualTo(5_000);
        assertThat(CheckpointSpace.sizeAtCompletion(appended, completedAt, 4_000L)).isEqualTo(5_000);
        assertThat(CheckpointSpace.sizeAtCompletion(appendedAfterALateSegment, completedAt, 6_000L))
                .as("a segment the checkpoint refers to ends after the scan before").isEqualTo(6_000);
        assertThat(CheckpointSpace.sizeAtCompletion(firstSeenNow, completedAt, null)).isEqualTo(9_000);
    }
}
