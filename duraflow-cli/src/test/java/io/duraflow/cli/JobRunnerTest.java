package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.client.CollectedResults;
import io.duraflow.examples.WordCount;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.exchange.CorruptFrameException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobRunnerTest {
    private static final TypeSerializer<Tuple2<String, Long>> COUNT = Types.tuple(Types.STRING, Types.LONG);

    private static JobGraph wordCount() {
        return JobPlans.build(WordCount.class.getName(), Map.of("words", "10"), 1);
    }

    private static byte[] collected(List<Tuple2<String, Long>> records) {
        DataWriter out = new DataWriter();
        DataWriter record = new DataWriter();
        for (Tuple2<String, Long> value : records) {
            record.reset();
            COUNT.write(value, record);
            out.writeVarInt(record.position());
            out.writeBytes(record.buffer(), 0, record.position());
        }
        return out.toByteArray();
    }

    private static JobResult result(byte[] data) {
        return JobResult.newBuilder().addCollected(CollectedResult.newBuilder().setName(WordCount.RESULT)
                .setSubtask(0).setData(ByteString.copyFrom(data))).build();
    }

    @Test
    void decodesTheCollectedRecordsWithThePlansTypes() {
        byte[] data = collected(List.of(Tuple2.of("a", 2L), Tuple2.of("b", 1L)));

        assertThat(CollectedResults.decode(result(data), wordCount()))
                .containsEntry(WordCount.RESULT, List.of(Tuple2.of("a", 2L), Tuple2.of("b", 1L)));
    }

    @Test
    void aLengthThatOverrunsTheDataIsReportedNotMisread() {
        byte[] data = collected(List.of(Tuple2.of("a", 2L)));
        byte[] cut = java.util.Arrays.copyOf(data, data.length - 1);

        assertThatThrownBy(() -> CollectedResults.decode(result(cut), wordCount()))
                .isInstanceOf(CorruptFrameException.class)
                .hasMessageContaining("collected result 'counts' of subtask 0");
    }

    @Test
    void theSummaryCountsTheRunsOfEveryLeader() {
        // Two of four source tasks finished under the first leader and were kept; the other two ran
        // there as attempt 0 and again under the new leader as attempt 1; the new leader started 4
        // tasks in all ('attempts'), which is what the summary used to say.
        io.duraflow.rpc.proto.JobStatus status = io.duraflow.rpc.proto.JobStatus.newBuilder().setJobId("j")
                .setJobName("WordCount").setState(io.duraflow.rpc.proto.JobState.JOB_FINISHED).setSubmittedAtMs(1_000)
                .setEndedAtMs(3_000).setRestoredTasks(2)
                .addVertices(io.duraflow.rpc.proto.VertexStatus.newBuilder().setId(0).setParallelism(4).setFinished(4)
                        .setAttempts(2).addTasks(task(0)).addTasks(task(0)).addTasks(task(1)).addTasks(task(1)))
                .addVertices(io.duraflow.rpc.proto.VertexStatus.newBuilder().setId(1).setParallelism(2).setFinished(2)
                        .setAttempts(2).addTasks(task(0)).addTasks(task(0)))
                .build();
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();

        new JobRunner(null, new java.io.PrintStream(bytes, true)).printResult(
                JobResult.newBuilder().setStatus(status).build(), null, 10);

        assertThat(bytes.toString()).contains("2 vertices, 8 tasks run (0 restarts, 2 finished tasks kept through a"
                + " JobManager failover), 2.00 s");
    }

    private static io.duraflow.rpc.proto.TaskStatus task(int attempt) {
        return io.duraflow.rpc.proto.TaskStatus.newBuilder().setAttempt(attempt).setState("FINISHED").build();
    }

    @Test
    void anUnreadableResultSaysSoAndInventsNoTimes() {
        io.duraflow.rpc.proto.JobStatus unreadable = io.duraflow.rpc.proto.JobStatus.newBuilder().setJobId("lost")
                .setState(io.duraflow.rpc.proto.JobState.JOB_FAILED).setResultUnreadable(true)
                .setFailure("the job ended, but its stored result is unreadable: corrupt job result file"
                        + " /ha/job-result-store/lost.clean.json: checksum mismatch").build();

        String line = JobRunner.listLine(unreadable, 1_796_082_248_000L);
        assertThat(line).contains("lost").contains("UNKNOWN").doesNotContain("1970").doesNotContain(" s");

        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        new JobRunner(null, new java.io.PrintStream(bytes, true)).printResult(
                JobResult.newBuilder().setStatus(unreadable).build(), null, 10);
        assertThat(bytes.toString()).contains("unreadable").contains("lost.clean.json").contains("checksum mismatch")
                .doesNotContain("1970").doesNotContain("in 0.00 s");
    }
}
