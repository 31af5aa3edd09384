package io.duraflow.api.connectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.sink.CommittingSinkDriver;
import io.duraflow.api.sink.CommittingSinkWriter;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSinkTest {
    @TempDir
    Path dir;

    private record Context(String jobId, int subtaskIndex, int parallelism, int attemptNumber) implements SinkContext {
        static Context of(int subtask, int parallelism, int attempt) {
            return new Context("job-1", subtask, parallelism, attempt);
        }
    }

    private FileSink<Integer> sink() {
        return FileSink.of(dir.toString());
    }

    /** Name -> content of the files a reader of the directory sees (names not starting with '.' or '_'). */
    private TreeMap<String, String> visible() throws IOException {
        TreeMap<String, String> files = new TreeMap<>();
        for (Path file : FileSplitPlanner.listVisibleFiles(dir)) {
            files.put(file.getFileName().toString(), Files.readString(file));
        }
        return files;
    }

    private List<String> inProgress() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".inprogress")).sorted().toList();
        }
    }

    /** Every line of every visible part, in part name order. */
    private List<String> committedLines() throws IOException {
        List<String> lines = new ArrayList<>();
        visible().values().forEach(content -> content.lines().forEach(lines::add));
        return lines;
    }

    @Test
    void outputBecomesVisibleOnlyWhenCommitted() throws Exception {
        FileSink<Integer> sink = sink();
        CommittingSinkWriter<Integer, PendingPart> writer = sink.createWriter(Context.of(0, 1, 0));
        writer.write(1);
        writer.write(2);
        assertThat(visible()).isEmpty();

        List<PendingPart> parts = writer.prepareCommit(1);
        assertThat(parts).hasSize(1);
        assertThat(visible()).as("prepared, not committed").isEmpty();
        assertThat(inProgress()).hasSize(1);
        writer.write(3);

        sink.createCommitter(Context.of(0, 1, 0)).commit(parts);
        assertThat(visible()).hasSize(1);
        assertThat(visible().firstKey()).isEqualTo(Path.of(parts.get(0).finalPath()).getFileName().toString())
                .startsWith("part-0-");
        assertThat(committedLines()).containsExactly("1", "2");
        assertThat(inProgress()).as("record 3 waits for the next checkpoint").hasSize(1);
        writer.close();
    }

    @Test
    void committingAgainIsANoOpAndLostPartsFailNamingTheFiles() throws Exception {
        FileSink<Integer> sink = sink();
        CommittingSinkWriter<Integer, PendingPart> writer = sink.createWriter(Context.of(0, 1, 0));
        writer.write(7);
        List<PendingPart> parts = writer.prepareCommit(1);
        sink.createCommitter(Context.of(0, 1, 0)).commit(parts);
        sink.createCommitter(Context.of(0, 1, 0)).commit(parts);
        sink.createCommitter(Context.of(0, 1, 0)).commit(List.of(parts.get(0), parts.get(0)));
        assertThat(committedLines()).containsExactly("7");

        Path committed = Path.of(parts.get(0).finalPath());
        Files.delete(committed);
        assertThatThrownBy(() -> sink.createCommitter(Context.of(0, 1, 0)).commit(parts))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining("cannot commit part file " + committed)
                .hasMessageContaining(parts.get(0).inProgressPath());
        writer.close();
    }

    @Test
    void concurrentCommitsOfTheSameCommittablesBySeveralSubtasksAreSafe() throws Exception {
        FileSink<Integer> sink = sink();
        CommittingSinkWriter<Integer, PendingPart> writer = sink.withMaxPartSizeBytes(1).createWriter(Context.of(0, 1, 0));
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            writer.write(i);
            expected.add(i);
        }
        List<PendingPart> parts = writer.prepareCommit(1);
        assertThat(parts).hasSize(100);
        CyclicBarrier start = new CyclicBarrier(3);
        List<CompletableFuture<Void>> committers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            committers.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                    sink.createCommitter(Context.of(0, 1, 0)).commit(parts);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        CompletableFuture.allOf(committers.toArray(CompletableFuture[]::new)).join();
        assertThat(committedLines().stream().map(Integer::valueOf)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(inProgress()).isEmpty();
    }

    @Test
    void checkpointsWithoutRecordsMakeNoFilesAndSizeRollsMakeNoEmptyOnes() throws Exception {
        FileSink<String> sink = FileSink.<String>of(dir.toString()).withMaxPartSizeBytes(6);
        CommittingSinkWriter<String, PendingPart> writer = sink.createWriter(Context.of(0, 1, 0));
        assertThat(writer.prepareCommit(1)).isEmpty();
        assertThat(inProgress()).isEmpty();

        for (String line : List.of("ab", "cd", "efghij", "k")) {
            writer.write(line); // 3, 6 (roll), 7 (roll), 2 bytes
        }
        List<PendingPart> parts = writer.prepareCommit(2);
        assertThat(parts).hasSize(3);
        assertThat(writer.prepareCommit(3)).isEmpty();
        sink.createCommitter(Context.of(0, 1, 0)).commit(parts);
        assertThat(visible().values()).containsExactly("ab\ncd\n", "efghij\n", "k\n");
        assertThat(inProgress()).isEmpty();
    }

    @Test
    void partNamesNeverCollideAcrossWritersAttemptsAndJobs() throws Exception {
        Set<String> names = new HashSet<>();
        int files = 0;
        for (SinkContext context : List.of(Context.of(0, 2, 0), Context.of(0, 2, 0), Context.of(0, 2, 1),
                Context.of(1, 2, 0), new Context("job-2", 0, 2, 0))) {
            CommittingSinkWriter<Integer, PendingPart> writer = sink().createWriter(context);
            for (long checkpoint = 1; checkpoint <= 5; checkpoint++) {
                writer.write(1);
                for (PendingPart part : writer.prepareCommit(checkpoint)) {
                    names.add(Path.of(part.inProgressPath()).getFileName().toString());
                    names.add(Path.of(part.finalPath()).getFileName().toString());
                    files++;
                }
            }
            writer.close();
        }
        assertThat(files).isEqualTo(25);
        assertThat(names).hasSize(50);
        for (String name : names) {
            if (name.startsWith(".")) {
                PartFileName parsed = PartFileName.parseInProgress(name);
                assertThat(parsed).as(name).isNotNull();
                assertThat(names).contains(parsed.finalName());
            }
        }
    }

    @Test
    void partFileNamesParseBackAndTheJobTagIsStable() {
        PartFileName name = new PartFileName(12, PartFileName.jobTag("job-1"), PartFileName.newWriterId(), 34);
        assertThat(PartFileName.parseInProgress(name.inProgressName())).isEqualTo(name);
        assertThat(name.finalName()).isEqualTo("part-12-" + name.jobTag() + "-" + name.writerId() + "-34");
        assertThat(name.inProgressName()).isEqualTo("." + name.finalName() + ".inprogress");
        assertThat(PartFileName.parseInProgress(name.finalName())).isNull();
        assertThat(PartFileName.parseInProgress(".part-0.attempt-0.inprogress")).as("TextFileSink's").isNull();
        // Cleanup of a restarted job finds its files by this tag: it must not change between versions.
        assertThat(PartFileName.jobTag("job-1")).isEqualTo("026ab639c21df8aa");
        assertThat(PartFileName.newWriterId()).matches("[0-9a-f]{32}");
    }

    @Test
    void committableFormatRoundTripsAndRefusesUnknownVersions() {
        PendingPart part = new PendingPart("/out/.part-0-a-b-0.inprogress", "/out/part-0-a-b-0");
        DataWriter out = new DataWriter();
        PendingPart.SERIALIZER.write(part, out);
        assertThat(PendingPart.SERIALIZER.read(new DataReader(out.toByteArray()))).isEqualTo(part);

        DataWriter v2 = new DataWriter();
        v2.writeVarInt(2);
        assertThatThrownBy(() -> PendingPart.SERIALIZER.read(new DataReader(v2.toByteArray())))
                .isInstanceOf(CorruptDataException.class).hasMessageContaining("version 2");
    }

    /** A driver's checkpoint state holds every committable not committed yet; completions commit up to their id. */
    @Test
    void theDriverCommitsOnCompletionAndKeepsWhatALostNotificationLeft() throws Exception {
        CommittingSinkDriver<Integer, PendingPart> driver = CommittingSinkDriver.open(sink(), Context.of(0, 1, 0),
                List.of());
        driver.write(1);
        List<PendingPart> state1 = driver.snapshotState(1);
        assertThat(state1).hasSize(1);
        driver.notifyCheckpointComplete(1);
        assertThat(committedLines()).containsExactly("1");
        assertThat(driver.waitingCount()).isZero();

        driver.write(2);
        List<PendingPart> state2 = driver.snapshotState(2); // its completion notification is lost
        driver.write(3);
        List<PendingPart> state3 = driver.snapshotState(3); // aborted
        List<PendingPart> state4 = driver.snapshotState(4); // nothing new
        assertThat(state2).hasSize(1);
        assertThat(state3).hasSize(2).startsWith(state2.get(0));
        assertThat(state4).isEqualTo(state3);
        assertThat(committedLines()).containsExactly("1");

        driver.write(4);
        List<PendingPart> state5 = driver.snapshotState(5);
        driver.notifyCheckpointComplete(4);
        assertThat(committedLines()).containsExactlyInAnyOrder("1", "2", "3");
        assertThat(driver.waitingCount()).isEqualTo(1);
        driver.notifyCheckpointComplete(5);
        driver.notifyCheckpointComplete(5);
        assertThat(committedLines()).containsExactlyInAnyOrder("1", "2", "3", "4");
        assertThat(state5).as("taken before checkpoint 4 completed").hasSize(3);
        assertThatThrownBy(() -> driver.snapshotState(5)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("checkpoint ids must increase");
        driver.close();
    }

    /**
     * Checkpoint 1 completes but the subtask crashes before it hears so, after writing more; the
     * job restores from checkpoint 1 (twice, the second restore failing again right away): its
     * parts are committed exactly once, the lost execution's later records leave nothing.
     */
    @Test
    void aRestoreCommitsTheCheckpointsPartsIdempotentlyAndRemovesWhatTheLostExecutionLeft() throws Exception {
        CommittingSinkDriver<Integer, PendingPart> lost = CommittingSinkDriver.open(sink(), Context.of(0, 1, 0),
                List.of());
        lost.write(1);
        lost.write(2);
        List<PendingPart> checkpoint1 = lost.snapshotState(1);
        lost.write(3);
        lost.snapshotState(2); // never completes
        lost.write(4); // never prepared
        lost.close(); // the crash

        assertThat(visible()).isEmpty();
        CommittingSinkDriver<Integer, PendingPart> restored = CommittingSinkDriver.open(sink(), Context.of(0, 1, 1),
                checkpoint1);
        assertThat(committedLines()).containsExactly("1", "2");
        assertThat(inProgress()).as("checkpoint 2's and the unprepared part are gone").isEmpty();
        restored.write(30);
        restored.close(); // fails again before its first checkpoint

        CommittingSinkDriver<Integer, PendingPart> again = CommittingSinkDriver.open(sink(), Context.of(0, 1, 2),
                checkpoint1);
        again.write(3);
        again.write(4);
        assertThat(again.snapshotState(3)).hasSize(1); // checkpoint ids never go back
        again.notifyCheckpointComplete(3);
        assertThat(committedLines()).containsExactlyInAnyOrder("1", "2", "3", "4");
        assertThat(inProgress()).isEmpty();
        again.close();
    }

    @Test
    void aWriterDroppedBeforeItsFirstCheckpointLeavesNoVisibleOutputAndCleanupRemovesIt() throws Exception {
        FileSink<Integer> sink = sink();
        CommittingSinkWriter<Integer, PendingPart> crashed = sink.createWriter(Context.of(0, 1, 0));
        for (int i = 0; i < 100_000; i++) {
            crashed.write(i); // more than the buffer: bytes reach the in-progress file
        }
        crashed.close();
        assertThat(visible()).isEmpty();
        assertThat(inProgress()).hasSize(1);
        assertThat(Files.size(dir.resolve(inProgress().get(0)))).isPositive();

        sink.cleanUpLeftovers(Context.of(0, 1, 1), List.of(), Set.of());
        assertThat(inProgress()).isEmpty();
        assertThat(visible()).isEmpty();
    }

    /**
     * Parallelism 3 -> 2: subtask i deletes this job's in-progress files of old subtasks s with
     * s mod 2 == i that no restored committable names; nothing else.
     */
    @Test
    void cleanupAfterARescaleCoversEveryOldSubtaskAndSparesRestoredOtherJobsAndCommittedFiles() throws Exception {
        FileSink<Integer> sink = sink();
        List<PendingPart> restored = new ArrayList<>();
        List<String> leftovers = new ArrayList<>();
        for (int subtask = 0; subtask < 3; subtask++) {
            CommittingSinkWriter<Integer, PendingPart> writer = sink.createWriter(Context.of(subtask, 3, 0));
            writer.write(subtask);
            restored.addAll(writer.prepareCommit(1)); // in checkpoint 1, which is restored
            writer.write(10 + subtask);
            List<PendingPart> notRestored = writer.prepareCommit(2);
            leftovers.add(Path.of(notRestored.get(0).inProgressPath()).getFileName().toString());
            writer.close();
        }
        CommittingSinkWriter<Integer, PendingPart> otherJob = sink.createWriter(new Context("job-2", 0, 1, 0));
        otherJob.write(99);
        String otherJobFile = Path.of(otherJob.prepareCommit(1).get(0).inProgressPath()).getFileName().toString();
        otherJob.close();
        Files.writeString(dir.resolve(".part-0.attempt-0.inprogress"), "TextFileSink's\n");

        sink.cleanUpLeftovers(Context.of(1, 2, 1), restored, Set.of());
        assertThat(inProgress()).as("subtask 1 of 2 removes old subtask 1's only").doesNotContain(leftovers.get(1))
                .contains(leftovers.get(0), leftovers.get(2));
        sink.cleanUpLeftovers(Context.of(0, 2, 1), restored, Set.of());
        List<String> expected = new ArrayList<>();
        restored.forEach(p -> expected.add(Path.of(p.inProgressPath()).getFileName().toString()));
        expected.add(otherJobFile);
        expected.add(".part-0.attempt-0.inprogress");
        assertThat(inProgress()).containsExactlyInAnyOrderElementsOf(expected);

        sink.createCommitter(Context.of(0, 1, 0)).commit(restored);
        sink.cleanUpLeftovers(Context.of(0, 2, 1), restored, Set.of());
        assertThat(committedLines()).containsExactlyInAnyOrder("0", "1", "2");
    }

    /**
     * {@code cancel --savepoint} of job A at parallelism 2, restored as job B at parallelism 3:
     * A's parts open after the savepoint and those of a checkpoint in flight at the cancel are
     * gone once B's subtasks started, whatever order they start in and while B's first subtask
     * already writes; the savepoint's parts are committed; another job's in-progress file in the
     * same directory stays; B's checkpoints carry the whole lineage on.
     */
    @Test
    void aJobRestoredFromACancelledJobsSavepointAtAnotherParallelismRemovesThatJobsLeftovers() throws Exception {
        FileSink<Integer> sink = sink();
        List<CommittingSinkDriver<Integer, PendingPart>> jobA = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            jobA.add(CommittingSinkDriver.open(sink, new Context("job-a", i, 2, 0), List.of(), Set.of("job-0")));
        }
        List<PendingPart> savepoint = new ArrayList<>();
        Set<String> savepointLineage = new HashSet<>();
        for (int i = 0; i < 2; i++) {
            jobA.get(i).write(i);
            savepoint.addAll(jobA.get(i).snapshotState(7));
            savepointLineage.addAll(jobA.get(i).jobLineage());
        }
        for (int i = 0; i < 2; i++) {
            jobA.get(i).write(10 + i);
        }
        jobA.get(0).snapshotState(8); // a checkpoint in flight when the job is cancelled
        jobA.get(0).write(20);
        jobA.get(1).write(21);
        jobA.forEach(this::closeQuietly); // the cancel
        assertThat(inProgress()).hasSize(5);

        CommittingSinkWriter<Integer, PendingPart> otherJob = sink.createWriter(new Context("job-c", 0, 1, 0));
        otherJob.write(99);
        String otherJobFile = Path.of(otherJob.prepareCommit(1).get(0).inProgressPath()).getFileName().toString();

        List<CommittingSinkDriver<Integer, PendingPart>> jobB = new ArrayList<>();
        for (int i : new int[] {2, 0, 1}) {
            CommittingSinkDriver<Integer, PendingPart> driver = CommittingSinkDriver.open(sink,
                    new Context("job-b", i, 3, 0), savepoint, savepointLineage);
            driver.write(100 + i); // writes while the later subtasks still clean up
            jobB.add(driver);
        }
        assertThat(committedLines()).containsExactlyInAnyOrder("0", "1");
        assertThat(inProgress()).as("only the other job's part and job B's open parts")
                .hasSize(4).contains(otherJobFile)
                .allMatch(name -> name.equals(otherJobFile) || PartFileName.parseInProgress(name).jobTag()
                        .equals(PartFileName.jobTag("job-b")));
        assertThat(jobB.get(0).jobLineage()).containsExactlyInAnyOrder("job-0", "job-a", "job-b");

        for (CommittingSinkDriver<Integer, PendingPart> driver : jobB) {
            driver.snapshotState(9);
            driver.notifyCheckpointComplete(9);
            driver.close();
        }
        assertThat(committedLines()).containsExactlyInAnyOrder("0", "1", "100", "101", "102");
        assertThat(inProgress()).containsExactly(otherJobFile);
        otherJob.close();
    }

    /** A savepoint of an older build has no job lineage: the jobs its committables name are the lineage. */
    @Test
    void withoutARestoredLineageTheRestoredCommittablesNameTheEarlierJob() throws Exception {
        FileSink<Integer> sink = sink();
        CommittingSinkWriter<Integer, PendingPart> cancelled = sink.createWriter(new Context("job-a", 0, 1, 0));
        cancelled.write(1);
        List<PendingPart> savepoint = cancelled.prepareCommit(1);
        cancelled.write(2);
        cancelled.close();

        sink.createCommitter(Context.of(0, 1, 0)).commit(savepoint);
        sink.cleanUpLeftovers(new Context("job-b", 0, 2, 0), savepoint, Set.of());
        assertThat(inProgress()).isEmpty();
        assertThat(committedLines()).containsExactly("1");
    }

    /**
     * A writer of a fenced-off attempt creates a part after the new attempt's start cleanup: the
     * new attempt removes it at the end of its bounded input, once its final checkpoint is
     * committed, and not before (its own prepared part must stay for its checkpoint).
     */
    @Test
    void theEndOfABoundedInputRemovesWhatAFencedOffWriterCreatedAfterTheStart() throws Exception {
        FileSink<Integer> sink = sink();
        CommittingSinkDriver<Integer, PendingPart> current = CommittingSinkDriver.open(sink, Context.of(0, 2, 1),
                List.of(), Set.of("job-0"));
        CommittingSinkWriter<Integer, PendingPart> fencedOff = sink.createWriter(Context.of(0, 2, 0));
        fencedOff.write(-1);
        fencedOff.close();
        CommittingSinkWriter<Integer, PendingPart> earlierJob = sink.createWriter(new Context("job-0", 2, 4, 0));
        earlierJob.write(-2);
        earlierJob.close();
        CommittingSinkWriter<Integer, PendingPart> otherSubtask = sink.createWriter(Context.of(1, 2, 1));
        otherSubtask.write(7); // subtask 1 of this attempt, still writing

        current.write(1);
        current.snapshotState(1); // the final checkpoint, not completed yet
        current.cleanUpAtEnd();
        assertThat(inProgress()).as("nothing is removed while a part waits for its checkpoint").hasSize(4);
        current.notifyCheckpointComplete(1);
        current.cleanUpAtEnd();
        assertThat(committedLines()).containsExactly("1");
        assertThat(inProgress()).as("only subtask 1's open part is left").hasSize(1)
                .allMatch(name -> PartFileName.parseInProgress(name).subtask() == 1);
        current.close();
        otherSubtask.close();
    }

    private void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void inBatchModeFinishCommitsAndAbortDeletesOnlyWhatWasNotHandedOver() throws Exception {
        FileSink<Integer> sink = sink();
        CommittingSinkWriter<Integer, PendingPart> finished = sink.createWriter(Context.of(0, 2, 0));
        finished.write(1);
        finished.finish();
        finished.close();
        assertThat(committedLines()).containsExactly("1");

        CommittingSinkWriter<Integer, PendingPart> aborted = sink.withMaxPartSizeBytes(2).createWriter(
                Context.of(1, 2, 0));
        aborted.write(5);
        List<PendingPart> prepared = aborted.prepareCommit(1);
        aborted.write(6); // rolled at the size limit, not handed over
        aborted.write(7); // rolled too
        aborted.abort();
        aborted.close();
        assertThat(inProgress()).containsExactly(Path.of(prepared.get(0).inProgressPath()).getFileName().toString());
        assertThat(committedLines()).containsExactly("1");
    }

    @Test
    void anEmptyDirectoryIsRejected() {
        assertThatThrownBy(() -> FileSink.of("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("output directory must not be empty");
        assertThatThrownBy(() -> sink().withMaxPartSizeBytes(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 byte");
    }
}
