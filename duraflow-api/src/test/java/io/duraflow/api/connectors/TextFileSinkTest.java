package io.duraflow.api.connectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TextFileSinkTest {

    private record Context(int subtaskIndex, int attemptNumber) implements SinkContext {
        @Override
        public String jobId() {
            return "job";
        }

        @Override
        public int parallelism() {
            return 1;
        }
    }

    @Test
    void anEmptyDirectoryIsRejectedInsteadOfMeaningTheWorkingDirectory() {
        assertThatThrownBy(() -> TextFileSink.of("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("output directory must not be empty");
    }

    @Test
    void finishReplacesThePartFileAndClosingTwiceIsHarmless(@TempDir Path dir) throws Exception {
        TextFileSink<Integer> sink = TextFileSink.of(dir.resolve("out").toString());
        SinkWriter<Integer> first = sink.createWriter(new Context(0, 0));
        first.write(1);
        first.abort();
        first.close();
        SinkWriter<Integer> second = sink.createWriter(new Context(0, 1));
        second.write(2);
        second.write(3);
        second.finish();
        second.close();

        try (var files = Files.list(dir.resolve("out"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("part-0");
        }
        assertThat(Files.readString(dir.resolve("out/part-0"))).isEqualTo("2\n3\n");
    }
}
