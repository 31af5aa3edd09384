package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.FilterFunction;
import io.duraflow.api.functions.FlatMapFunction;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.MapFunction;
import io.duraflow.api.functions.ReduceFunction;
import io.duraflow.api.sink.Sink;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobGraph;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.TaskCounters;

/**
 * Which operators of a streaming task's chain are asked whether they can take their part of a
 * checkpoint, and what the task answers: any user function that is a {@link
 * CheckpointAvailabilityProvider} (map, filter, flat-map, reduce, a plain sink's writer, a keyed
 * process function) is asked, and the strongest answer wins, whatever the order in the chain.
 */
class StreamOperatorChainAvailabilityTest {
    @TempDir
    Path dir;

    /** Answers what the test sets; every other method is a pass-through. */
    static class Answering implements CheckpointAvailabilityProvider {
        SnapshotAvailability answer = SnapshotAvailability.available();
        int asked;

        @Override
        public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
            asked++;
            return answer;
        }
    }

    static final class Process extends KeyedProcessFunction<Long, Long, Long> {
        SnapshotAvailability answer = SnapshotAvailability.available();

        @Override
        public void processElement(Long value, Context<Long> context, Collector<Long> out) {
            out.collect(value);
        }

        @Override
        public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
            return answer;
        }
    }

    static final class Enrich extends Answering implements MapFunction<Long, Long> {
        @Override
        public Long map(Long value) {
            return value;
        }
    }

    static final class KeepAll extends Answering implements FilterFunction<Long> {
        @Override
        public boolean filter(Long value) {
            return true;
        }
    }

    static final class Twice extends Answering implements FlatMapFunction<Long, Long> {
        @Override
        public void flatMap(Long value, Collector<Long> out) {
            out.collect(value);
            out.collect(value);
        }
    }

    static final class Sum extends Answering implements ReduceFunction<Long> {
        @Override
        public Long reduce(Long left, Long right) {
            return left + right;
        }
    }

    static final class Writer extends Answering implements SinkWriter<Long> {
        @Override
        public void write(Long record) {}

        @Override
        public void finish() {}
    }

    private final Process process = new Process();
    private final Enrich enrich = new Enrich();
    private final KeepAll keepAll = new KeepAll();
    private final Twice twice = new Twice();
    private final Sum sum = new Sum();
    private final Writer writer = new Writer();

    /** The chain of the job's second vertex, built from {@code afterKeyBy} applied to a keyed stream. */
    private StreamOperatorChain chain(Function<Flow<Long>, Flow<Long>> keyedPart) throws Exception {
        JobBuilder job = new JobBuilder("available");
        Flow<Long> keyed = keyedPart.apply(job.fromSource("numbers", new SequenceSource(0, 10, 1)));
        keyed.map(enrich, Types.LONG).filter(keepAll).flatMap(twice, Types.LONG).sinkTo("out", new Sink<>() {
            @Override
            public SinkWriter<Long> createWriter(SinkContext context) {
                return writer;
            }

            @Override
            public String description() {
                return "answering writer";
            }
        });
        JobGraph graph = JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING);
        return new StreamOperatorChain(graph, graph.vertices().get(1), Map.of(), null,
                new OperatorChain.Settings(1 << 20, 1 << 20, dir), new TaskCounters(),
                new KeyedProcessOperatorTest.ManualTime(), new StreamOperatorChain.Subtask(0, 1, 128), 200);
    }

    private StreamOperatorChain processChain() throws Exception {
        return chain(numbers -> numbers.keyBy(n -> n % 3, Types.LONG).process(process, Types.LONG));
    }

    @Test
    void aMapFunctionThatIsAProviderCanDeclineSoftlyAndHard() throws Exception {
        StreamOperatorChain chain = processChain();
        assertThat(chain.snapshotAvailability(1)).isEqualTo(SnapshotAvailability.available());

        enrich.answer = SnapshotAvailability.softFailure("the lookup cache is loading");
        assertThat(chain.snapshotAvailability(2)).isEqualTo(SnapshotAvailability.softFailure(
                "the lookup cache is loading"));

        enrich.answer = SnapshotAvailability.hardFailure("the lookup cache is corrupt");
        assertThat(chain.snapshotAvailability(3)).isEqualTo(SnapshotAvailability.hardFailure(
                "the lookup cache is corrupt"));
    }

    @Test
    void filterFlatMapReduceAndAPlainSinksWriterAreAskedToo() throws Exception {
        StreamOperatorChain chain = chain(numbers -> numbers.keyBy(n -> n % 3, Types.LONG).reduce(sum));
        for (Answering provider : List.of(keepAll, twice, sum, writer)) {
            provider.answer = SnapshotAvailability.softFailure(provider.getClass().getSimpleName() + " is busy");
            assertThat(chain.snapshotAvailability(1).message()).isEqualTo(provider.getClass().getSimpleName()
                    + " is busy");
            provider.answer = SnapshotAvailability.available();
        }
    }

    @Test
    void aSoftDeclineOfTheHeadDoesNotHideAHardOneFurtherDownAndEveryOperatorIsAsked() throws Exception {
        StreamOperatorChain chain = processChain();
        process.answer = SnapshotAvailability.softFailure("a window is open");
        writer.answer = SnapshotAvailability.softFailure("a file is half written");
        enrich.answer = SnapshotAvailability.hardFailure("the lookup cache is corrupt");

        assertThat(chain.snapshotAvailability(1)).isEqualTo(SnapshotAvailability.hardFailure(
                "the lookup cache is corrupt; also not now: a window is open; a file is half written"));
        assertThat(List.of(enrich.asked, keepAll.asked, twice.asked, writer.asked)).containsOnly(1);
    }

    @Test
    void severalSoftDeclinesAreOneSoftDeclineNamingEach() throws Exception {
        StreamOperatorChain chain = processChain();
        process.answer = SnapshotAvailability.softFailure("a window is open");
        twice.answer = SnapshotAvailability.softFailure("a batch is pending");

        assertThat(chain.snapshotAvailability(1)).isEqualTo(SnapshotAvailability.softFailure(
                "a window is open; a batch is pending"));
    }

    @Test
    void aProviderThatAnswersNullFailsNamingItsClass() throws Exception {
        StreamOperatorChain chain = processChain();
        enrich.answer = null;
        assertThatThrownBy(() -> chain.snapshotAvailability(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(Enrich.class.getName());
    }
}
