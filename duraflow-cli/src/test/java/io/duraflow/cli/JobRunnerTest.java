package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.examples.WordCount;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.shuffle.CorruptFrameException;
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

        assertThat(JobRunner.decode(result(data), wordCount()))
                .containsEntry(WordCount.RESULT, List.of(Tuple2.of("a", 2L), Tuple2.of("b", 1L)));
    }

    @Test
    void aLengthThatOverrunsTheDataIsReportedNotMisread() {
        byte[] data = collected(List.of(Tuple2.of("a", 2L)));
        byte[] cut = java.util.Arrays.copyOf(data, data.length - 1);

        assertThatThrownBy(() -> JobRunner.decode(result(cut), wordCount()))
                .isInstanceOf(CorruptFrameException.class)
                .hasMessageContaining("collected result 'counts' of subtask 0");
    }
}
