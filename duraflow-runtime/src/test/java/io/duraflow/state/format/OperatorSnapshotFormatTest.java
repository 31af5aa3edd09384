package io.duraflow.state.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorStateHandle.Distribution;
import io.duraflow.state.format.OperatorSnapshotFormat.ListMeta;
import io.duraflow.state.storage.CheckpointedStateScope;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OperatorSnapshotFormatTest {
    @TempDir
    Path dir;

    private static String crc(String hexBytes) {
        CRC32C crc = new CRC32C();
        crc.update(HexFormat.of().parseHex(hexBytes.replace(" ", "")));
        return String.format("%08x", (int) crc.getValue());
    }

    @Test
    void aStreamIsWrittenByteForByteAsDocumentedAndReadBack() throws IOException {
        FsCheckpointStorage storage = new FsCheckpointStorage(LocalFileSystem.INSTANCE,
                CheckpointDirectories.of(FsPath.of(dir), "job"), 1 << 20);
        OperatorSnapshotFormat.Writer writer = new OperatorSnapshotFormat.Writer(
                storage.streamFactory(1).createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE),
                List.of(new ListMeta("s", Distribution.SPLIT, "int"), new ListMeta("u", Distribution.UNION, "int")));
        writer.writeElement("s", new byte[] {1}, 0, 1);
        writer.writeElement("u", new byte[] {2, 3}, 0, 2);
        writer.writeElement("s", new byte[] {4}, 0, 1);
        OperatorStateHandle handle = writer.finish();

        String body = "02 0173 01 03696e74 0175 02 03696e74";
        String expected = "44464f53 00000001 0000000f " + body + crc(body)
                + "00000001" + crc("01") + "01"
                + "00000002" + crc("0203") + "0203"
                + "00000001" + crc("04") + "04";
        assertThat(HexFormat.of().formatHex(((InlineStateHandle) handle.stream()).bytes()))
                .isEqualTo(expected.replace(" ", ""));
        assertThat(handle.lists().get("s").elementOffsets()).containsExactly(31, 50);
        assertThat(handle.lists().get("u").elementOffsets()).containsExactly(40);

        var restored = OperatorSnapshotFormat.read(handle);
        assertThat(restored.get("s").elements()).containsExactly(new byte[] {1}, new byte[] {4});
        assertThat(restored.get("u").elements()).containsExactly(new byte[] {2, 3});
        assertThat(restored.get("u").meta()).isEqualTo(new ListMeta("u", Distribution.UNION, "int"));
    }
}
