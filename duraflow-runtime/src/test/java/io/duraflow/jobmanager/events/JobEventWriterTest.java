package io.duraflow.jobmanager.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.jobmanager.events.proto.JobEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class JobEventWriterTest {
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final long LARGE_BUFFER = 1 << 20;

    @TempDir
    Path tempDir;
    private Path dir;
    private final ManualMailbox scheduler = new ManualMailbox();
    private final List<JobEventWriter> writers = new ArrayList<>();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger writerLogger = (Logger) LoggerFactory.getLogger(JobEventWriter.class);

    @BeforeEach
    void setUp() {
        dir = tempDir.resolve("ha/default/j1/job-events");
        log.start();
        writerLogger.addAppender(log);
    }

    @AfterEach
    void tearDown() {
        writers.forEach(JobEventWriter::abandon);
        scheduler.runDue();
        writerLogger.detachAppender(log);
    }

    /** A writer whose writes happen only when the test runs the manual scheduler. */
    private JobEventWriter manualWriter(long bufferBytes) {
        return track(new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), bufferBytes, INTERVAL,
                scheduler, file -> InterceptingStream.createNew(file, 0)));
    }

    private JobEventWriter track(JobEventWriter writer) {
        writers.add(writer);
        return writer;
    }

    private List<JobEvent> onDisk() throws IOException {
        return JobEventReader.readAll(dir).events();
    }

    private List<ILoggingEvent> warnings() {
        return log.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
    }

    @Test
    void aRestartedJobManagerAppendsToANewFileAndReadingReturnsBothInOrder() throws Exception {
        try (JobEventWriter first = new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), LARGE_BUFFER, INTERVAL)) {
            first.append(TestEvents.vertexInitialized());
            first.append(TestEvents.splitsAssigned());
        }
        byte[] firstFile = Files.readAllBytes(dir.resolve("events.0"));

        JobEventWriter second = new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), LARGE_BUFFER, INTERVAL);
        second.append(TestEvents.executionFinished());
        second.flush().get(10, TimeUnit.SECONDS);
        assertThat(second.file()).isEqualTo(FsPath.of(dir.resolve("events.1")));
        second.close();

        assertThat(onDisk()).containsExactly(TestEvents.vertexInitialized(), TestEvents.splitsAssigned(),
                TestEvents.executionFinished());
        assertThat(Files.readAllBytes(dir.resolve("events.0"))).as("the old file is never reopened")
                .isEqualTo(firstFile);

        new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), LARGE_BUFFER, INTERVAL).close();
        assertThat(dir.resolve("events.2")).as("a session that records nothing leaves no file").doesNotExist();
        assertThat(JobEventReader.nextFileIndex(dir)).isEqualTo(2);
    }

    @Test
    void concurrentAppendsLoseNothingAndKeepEachThreadsOrder() throws Exception {
        int threads = 8;
        int perThread = 10_000;
        JobEventWriter writer = track(new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), 4096, Duration.ofMillis(5)));
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> appenders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            appenders.add(new Thread(() -> {
                awaitUninterruptibly(start);
                for (int i = 0; i < perThread; i++) {
                    writer.append(TestEvents.fromThread(thread, i));
                    if (i % 1000 == 0) {
                        writer.flush();
                    }
                }
            }, "appender-" + t));
        }
        appenders.forEach(Thread::start);
        start.countDown();
        for (Thread appender : appenders) {
            appender.join(TimeUnit.SECONDS.toMillis(30));
        }
        writer.close();

        List<JobEvent> events = onDisk();
        assertThat(events).hasSize(threads * perThread);
        int[] next = new int[threads];
        for (JobEvent event : events) {
            int thread = event.getSplitsReturned().getNodeId();
            assertThat(event.getSplitsReturned().getCount()).as("next event of thread %d", thread)
                    .isEqualTo(next[thread]++);
        }
        assertThat(writer.writtenEvents()).isEqualTo(threads * perThread);
        assertThat(writer.droppedEvents()).isZero();
        assertThat(writer.disabled()).isFalse();
    }

    @Test
    void aFullBufferIsWrittenWithoutWaitingForTheInterval() throws Exception {
        int recordBytes = JobEventLogFormat.encodeRecord(TestEvents.numbered(1)).length;
        JobEventWriter writer = manualWriter(3L * recordBytes);

        writer.append(TestEvents.numbered(1));
        writer.append(TestEvents.numbered(2));
        scheduler.runDue();
        assertThat(dir).as("two records do not fill the buffer").doesNotExist();

        writer.append(TestEvents.numbered(3));
        scheduler.runDue();

        assertThat(scheduler.now()).isZero();
        assertThat(onDisk()).containsExactly(TestEvents.numbered(1), TestEvents.numbered(2), TestEvents.numbered(3));
        assertThat(scheduler.pending()).as("the interval flush of the written events is called off").isZero();
    }

    @Test
    void aFullBufferIsWrittenByTheWriterThread() {
        JobEventWriter writer = track(new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), 1, Duration.ofHours(1)));

        writer.append(TestEvents.numbered(1));
        writer.append(TestEvents.numbered(2));

        // The writer counts a batch after its sync returns, so the file may show it a moment earlier.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> onDisk().size() == 2 && writer.writtenEvents() == 2);
    }

    @Test
    void bufferedEventsAreWrittenOneIntervalAfterTheOldestOne() throws Exception {
        JobEventWriter writer = manualWriter(LARGE_BUFFER);

        writer.append(TestEvents.numbered(1));
        scheduler.advance(400);
        writer.append(TestEvents.numbered(2));
        scheduler.advance(599);
        assertThat(dir).as("999 ms after the oldest event").doesNotExist();

        scheduler.advance(1);
        assertThat(onDisk()).containsExactly(TestEvents.numbered(1), TestEvents.numbered(2));

        writer.append(TestEvents.numbered(3));
        scheduler.advance(999);
        assertThat(onDisk()).hasSize(2);
        scheduler.advance(1);
        assertThat(onDisk()).containsExactly(TestEvents.numbered(1), TestEvents.numbered(2), TestEvents.numbered(3));
        assertThat(scheduler.pending()).as("no timer while nothing is buffered").isZero();
    }

    @Test
    void flushWritesNowAndCompletesWhenTheEventsAreOnDisk() throws Exception {
        JobEventWriter writer = manualWriter(LARGE_BUFFER);
        writer.append(TestEvents.numbered(1));

        CompletableFuture<Void> flushed = writer.flush();
        assertThat(flushed).isNotDone();
        scheduler.runDue();

        assertThat(flushed).isCompleted();
        assertThat(onDisk()).containsExactly(TestEvents.numbered(1));
        assertThat(scheduler.now()).isZero();
    }

    @Test
    void closeWritesWhatIsBufferedAndLaterAppendsAreDropped() throws Exception {
        JobEventWriter writer = manualWriter(LARGE_BUFFER);
        writer.append(TestEvents.numbered(1));

        CompletableFuture<Void> closed = writer.closeAsync();
        scheduler.runDue();
        writer.append(TestEvents.numbered(2));

        assertThat(closed).isCompleted();
        assertThat(writer.flush()).isSameAs(closed);
        assertThat(onDisk()).containsExactly(TestEvents.numbered(1));
        assertThat(writer.droppedEvents()).isEqualTo(1);
        assertThat(writer.disabled()).isFalse();
    }

    @Test
    void abandonDropsWhatIsBuffered() throws Exception {
        JobEventWriter writer = manualWriter(LARGE_BUFFER);
        writer.append(TestEvents.numbered(1));
        writer.flush();
        scheduler.runDue();
        writer.append(TestEvents.numbered(2));

        writer.abandon();
        scheduler.advance(INTERVAL.toMillis());

        assertThat(onDisk()).containsExactly(TestEvents.numbered(1));
        assertThat(writer.droppedEvents()).isEqualTo(1);
    }

    @Test
    void everyWriteCallEndsOnARecordBoundaryAndIsForced() throws Exception {
        List<InterceptingStream> streams = new ArrayList<>();
        JobEventWriter writer = track(new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), 300, INTERVAL,
                scheduler, file -> {
            InterceptingStream stream = InterceptingStream.createNew(file, 0);
            streams.add(stream);
            return stream;
        }));
        Set<Long> boundaries = new HashSet<>();
        long end = JobEventLogFormat.FILE_HEADER_BYTES;
        for (int i = 0; i < 200; i++) {
            JobEvent event = i % 7 == 0 ? TestEvents.executionFinished() : TestEvents.numbered(i);
            writer.append(event);
            end += JobEventLogFormat.encodeRecord(event).length;
            boundaries.add(end);
            if (i % 3 == 0) {
                scheduler.runDue();
            }
        }
        writer.closeAsync();
        scheduler.runDue();

        long fileSize = end;
        assertThat(streams).singleElement().satisfies(stream -> {
            assertThat(stream.positionsAfterWrites).hasSizeGreaterThan(10);
            assertThat(boundaries).containsAll(stream.positionsAfterWrites);
            assertThat(stream.positionsAfterWrites).last().isEqualTo(fileSize);
            assertThat(stream.positionsSynced).as("every batch is forced to disk")
                    .isEqualTo(stream.positionsAfterWrites);
        });
        assertThat(onDisk()).hasSize(200);
    }

    @Test
    void aWriteFailureDisablesTheWriterAndTheJobGoesOn() throws Exception {
        JobEventWriter writer = track(new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), LARGE_BUFFER,
                INTERVAL, scheduler, file -> InterceptingStream.createNew(file, 2)));
        writer.append(TestEvents.numbered(1));
        writer.append(TestEvents.numbered(2));
        writer.flush();
        scheduler.runDue();

        writer.append(TestEvents.numbered(3));
        writer.append(TestEvents.numbered(4));
        CompletableFuture<Void> failed = writer.flush();
        scheduler.runDue();

        assertThat(writer.disabled()).isTrue();
        assertThat(failed).isCompletedExceptionally();
        assertThat(writer.droppedEvents()).isEqualTo(2);
        assertThatCode(() -> {
            for (int i = 5; i < 100; i++) {
                writer.append(TestEvents.numbered(i));
            }
            writer.flush();
            scheduler.advance(10_000);
        }).doesNotThrowAnyException();
        assertThat(writer.droppedEvents()).isEqualTo(2 + 95);
        assertThat(writer.writtenEvents()).isEqualTo(2);

        JobEventReader.ReadResult log = JobEventReader.readAll(dir);
        assertThat(log.events()).as("half a batch reached the disk: a torn tail")
                .containsExactly(TestEvents.numbered(1), TestEvents.numbered(2));
        assertThat(log.warnings()).singleElement().asString().contains("torn end");
        assertThat(warnings()).singleElement().satisfies(warning -> {
            assertThat(warning.getFormattedMessage()).contains(dir.resolve("events.0").toString())
                    .contains("No space left on device").contains("Batch job recovery is off for this job");
        });
    }

    @Test
    void aDirectoryThatCannotBeCreatedDisablesTheWriterOnTheRealThread() throws Exception {
        Files.createDirectories(dir.getParent());
        Files.writeString(dir, "a file where the log directory should be");
        JobEventWriter writer = track(new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), LARGE_BUFFER, INTERVAL));

        writer.append(TestEvents.numbered(1));
        CompletableFuture<Void> flushed = writer.flush();

        await().atMost(Duration.ofSeconds(10)).until(flushed::isDone);
        assertThat(flushed).isCompletedExceptionally();
        assertThat(writer.disabled()).isTrue();
        writer.append(TestEvents.numbered(2));
        writer.close();
        assertThat(writer.droppedEvents()).isEqualTo(2);
        assertThat(warnings()).singleElement().satisfies(warning -> assertThat(warning.getFormattedMessage())
                .contains(dir.toString()).contains("NotDirectoryException"));
    }

    @Test
    void aFileTakenByAnotherSessionMeanwhileMakesTheWriterTakeTheNextIndex() throws Exception {
        JobEventWriter writer = track(new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), LARGE_BUFFER,
                INTERVAL, scheduler, file -> {
            if (file.name().equals("events.0")) {
                TestEvents.writeFile(file.toLocalPath(), List.of(TestEvents.numbered(0)));  // the other session wins the race
            }
            return InterceptingStream.createNew(file, 0);
        }));
        writer.append(TestEvents.numbered(1));
        writer.closeAsync();
        scheduler.runDue();

        assertThat(writer.file()).isEqualTo(FsPath.of(dir.resolve("events.1")));
        assertThat(onDisk()).containsExactly(TestEvents.numbered(0), TestEvents.numbered(1));
        assertThat(writer.disabled()).isFalse();
    }

    @Test
    void theWriterThreadIsNamedAndStopsOnClose() throws Exception {
        Set<Thread> before = writerThreads();
        JobEventWriter writer = new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), LARGE_BUFFER, INTERVAL);
        writer.append(TestEvents.numbered(1));
        writer.flush().get(10, TimeUnit.SECONDS);
        Set<Thread> started = writerThreads();
        started.removeAll(before);
        assertThat(started).hasSize(1);

        writer.close();

        Thread thread = started.iterator().next();
        thread.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(thread.isAlive()).isFalse();
    }

    private static Set<Thread> writerThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(JobEventWriter.THREAD_NAME) && t.isAlive()) {
                threads.add(t);
            }
        }
        return threads;
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
