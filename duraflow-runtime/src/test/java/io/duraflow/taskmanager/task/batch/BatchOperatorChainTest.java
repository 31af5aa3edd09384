package io.duraflow.taskmanager.task.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.TaskCounters;

class BatchOperatorChainTest {
    @TempDir
    Path dir;

    @Test
    void aChainThatFailsHalfBuiltAbortsAndClosesTheSinkWritersItHadCreated() {
        RecordingSink[] sinks = RecordingSink.pairWhoseSecondWriterFails();
        JobBuilder builder = new JobBuilder("two-sinks");
        Flow<Long> numbers = builder.fromSource("numbers", new SequenceSource(0, 10, 1));
        numbers.sinkTo("first", sinks[0]);
        numbers.sinkTo("second", sinks[1]);
        JobGraph graph = JobGraph.compile(builder.plan(), 1);
        JobVertex vertex = graph.vertices().get(0);
        assertThat(vertex.nodes()).as("both sinks chained to the source").hasSize(3);

        assertThatThrownBy(() -> new BatchOperatorChain(graph, vertex, Map.of(), Map.of(), context(),
                new OperatorChain.Settings(1 << 20, 1 << 20, dir), new TaskCounters()))
                .hasMessage("cannot create writer");

        RecordingSink.Calls created = sinks[0].writers.isEmpty() ? sinks[1].writers.get(0) : sinks[0].writers.get(0);
        assertThat(sinks[0].writers.size() + sinks[1].writers.size()).isEqualTo(1);
        assertThat(created.aborts).isEqualTo(1);
        assertThat(created.closes).isEqualTo(1);
    }

    private static SinkContext context() {
        return new SinkContext() {
            @Override
            public String jobId() {
                return "job";
            }

            @Override
            public int subtaskIndex() {
                return 0;
            }

            @Override
            public int parallelism() {
                return 1;
            }

            @Override
            public int attemptNumber() {
                return 0;
            }
        };
    }
}
