package io.duraflow.exchange;

import io.duraflow.exchange.blocking.PartitionFileReader;
import io.duraflow.exchange.blocking.PartitionFileWriter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The blocking file partition through the writer interface a task sees. */
class ResultPartitionWriterTest {
    @TempDir
    Path dir;

    @Test
    void broadcastWritesTheRecordToEverySubpartitionOfTheFile() throws IOException {
        PartitionSummary summary;
        try (ResultPartitionWriter writer = new PartitionFileWriter(dir.resolve("d"), dir.resolve("i"), 3, 1024)) {
            writer.broadcast(new byte[] {9, 1, 2, 9}, 1, 2);
            writer.write(1, new byte[] {5}, 0, 1);
            summary = writer.finish();
        }
        assertThat(summary.records(0)).isEqualTo(1);
        assertThat(summary.records(1)).isEqualTo(2);
        assertThat(summary.records(2)).isEqualTo(1);
        assertThat(summary.bytes(0)).isEqualTo(summary.bytes(2)).isPositive();
        try (PartitionFileReader reader = PartitionFileReader.open(dir.resolve("d"), dir.resolve("i"))) {
            assertThat(reader.records(2)).isEqualTo(1);
        }
    }

    @Test
    void closingWithoutFinishLeavesNoPartitionAndAbortIsIdempotent() throws IOException {
        ResultPartitionWriter writer = new PartitionFileWriter(dir.resolve("d"), dir.resolve("i"), 2, 1024);
        writer.write(0, new byte[] {1}, 0, 1);
        writer.close();
        writer.abort();
        assertThat(dir.resolve("d")).doesNotExist();
        assertThat(dir.resolve("i")).doesNotExist();
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }
}
