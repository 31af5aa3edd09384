package io.duraflow.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.connectors.StrideSplit;
import io.duraflow.api.types.Tuple3;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pure parts of 'duraflow demo streaming-failover'; StreamingFailoverIT runs the demo. */
class StreamingFailoverDemoTest {
    private static final long RECORDS = 1000;
    private static final long KEYS = 7;

    @Test
    void exactOutputPasses() {
        assertThat(ExactOutput.check(new ArrayList<>(ExactOutput.expected(RECORDS, KEYS)), RECORDS, KEYS)).isEmpty();
    }

    @Test
    void aLineWrittenTwiceIsADuplicate() {
        List<Tuple3<Long, Long, Long>> output = new ArrayList<>(ExactOutput.expected(RECORDS, KEYS));
        output.add(output.get(3));

        assertThat(ExactOutput.check(output, RECORDS, KEYS)).contains("duplicate " + line(output.get(3)))
                .anyMatch(problem -> problem.contains("1 written more than once"));
    }

    @Test
    void aLostLineIsMissingAndAWrongOneUnexpected() {
        List<Tuple3<Long, Long, Long>> output = new ArrayList<>(ExactOutput.expected(RECORDS, KEYS));
        Tuple3<Long, Long, Long> lost = output.remove(0);
        Tuple3<Long, Long, Long> wrong = Tuple3.of(lost.f0(), lost.f1() + 1, lost.f2());
        output.add(wrong);

        assertThat(ExactOutput.check(output, RECORDS, KEYS)).contains("missing " + line(lost),
                "unexpected " + line(wrong) + " (key,sum,count)");
    }

    @Test
    void theLoopCountsEveryRecordOnce() {
        long count = 0;
        long sum = 0;
        for (Tuple3<Long, Long, Long> line : ExactOutput.expected(RECORDS, KEYS)) {
            count += line.f2();
            sum += line.f1();
        }
        assertThat(count).isEqualTo(RECORDS);
        assertThat(sum).isEqualTo(RECORDS * (RECORDS - 1) / 2);
        assertThat(ExactOutput.expected(3, KEYS)).hasSize(3);
    }

    @Test
    void replayedRecordsAreThoseReadPastTheRestoredCheckpoint() {
        CheckpointWatch.Seen last = new CheckpointWatch.Seen(7, 10_000, 10_050, 500_000);
        // 100 records per ms for 600 ms after checkpoint 7 was triggered.
        assertThat(StreamingFailoverDemo.replayed(last, 100.0, 10_600, last, 1_000_000)).isEqualTo(60_000);
        // Restored from a checkpoint that completed after the kill: fewer records to read again.
        CheckpointWatch.Seen newer = new CheckpointWatch.Seen(8, 10_500, 10_650, 550_000);
        assertThat(StreamingFailoverDemo.replayed(last, 100.0, 10_600, newer, 1_000_000)).isEqualTo(10_000);
        // Never past the end of the input, never negative.
        assertThat(StreamingFailoverDemo.replayed(last, 100.0, 20_000, last, 520_000)).isEqualTo(20_000);
        assertThat(StreamingFailoverDemo.replayed(last, 100.0, 10_100, newer, 1_000_000)).isZero();
    }

    @Test
    void remainingCountsTheIndexesLeftInEachSplit() {
        // Split 1 of 4 below 100: 1, 5, ..., 97 (25 indexes); at 41, 15 are left. Split 3 is at its end.
        assertThat(CheckpointWatch.remaining(List.of(new StrideSplit(1, 41, 4, 100), new StrideSplit(3, 103, 4, 100))))
                .isEqualTo(15);
        assertThat(CheckpointWatch.remaining(List.of(new StrideSplit(0, 0, 2, 5)))).isEqualTo(3);
    }

    @Test
    void theTimeATaskManagerGaveUpItsJobManagerComesFromItsLog() {
        ZoneId zone = ZoneId.systemDefault();
        long killedAt = LocalDate.of(2026, 12, 1).atTime(11, 21, 45, 470_000_000).atZone(zone).toInstant().toEpochMilli();
        String line = "11:21:49.865 WARN  [taskmanager-main] i.d.t.TaskExecutor - Lost the JobManager (the leader"
                + " changed to 127.0.0.1:44015): cancelled the tasks, keeping 0 finished partitions for 300000 ms";

        assertThat(LocalTaskManagers.gaveUpAt(line, killedAt)).contains(killedAt + 4_395);
        assertThat(LocalTaskManagers.gaveUpAt(line.replace("11:21:49", "11:10:00"), killedAt)).isEmpty();
        assertThat(LocalTaskManagers.gaveUpAt("11:21:49.865 INFO  something else", killedAt)).isEmpty();
        // Just after midnight, for a kill just before.
        long lateKill = LocalDate.of(2026, 12, 1).atTime(LocalTime.of(23, 59, 59)).atZone(zone).toInstant()
                .toEpochMilli();
        assertThat(LocalTaskManagers.gaveUpAt(line.replace("11:21:49.865", "00:00:02.000"), lateKill))
                .isEqualTo(Optional.of(lateKill + 3_000));
    }

    private static String line(Tuple3<Long, Long, Long> sum) {
        return sum.f0() + "," + sum.f1() + "," + sum.f2();
    }
}
