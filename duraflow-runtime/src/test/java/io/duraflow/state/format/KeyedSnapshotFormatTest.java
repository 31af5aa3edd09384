package io.duraflow.state.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.format.KeyedSnapshotFormat.Block;
import io.duraflow.state.format.KeyedSnapshotFormat.Header;
import io.duraflow.state.format.KeyedSnapshotFormat.StateMeta;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import io.duraflow.state.storage.CorruptStateException;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyedSnapshotFormatTest {
    private static final Header HEADER = new Header("long", 128, List.of(new StateMeta("sum", StateKind.VALUE,
            "value(long)")));

    /** The CRC32C of key group 5's payload, as docs/design/checkpoint-files.md shows it. */
    private static final String DOCUMENTED_PAYLOAD_CRC = "8ec9c438";

    @TempDir
    Path dir;

    private CheckpointStreamFactory factory(int inlineThreshold) {
        return new FsCheckpointStorage(LocalFileSystem.INSTANCE, CheckpointDirectories.of(FsPath.of(dir), "job"),
                inlineThreshold).streamFactory(1);
    }

    private static byte[] hex(String text) {
        return HexFormat.of().parseHex(text.replace(" ", ""));
    }

    private static String crc(String hexBytes) {
        CRC32C crc = new CRC32C();
        crc.update(hex(hexBytes));
        return String.format("%08x", (int) crc.getValue());
    }

    /**
     * Key 7 with value 9 and an event-time timer at 1000 in key group 5: the example in
     * docs/design/checkpoint-files.md ({@code long} is a zig-zag var-long).
     */
    private KeyGroupsStateHandle writeExample(CheckpointStreamFactory factory) throws IOException {
        KeyedSnapshotFormat.Writer writer = new KeyedSnapshotFormat.Writer(
                factory.createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE), new KeyGroupRange(5, 6), HEADER);
        writer.beginKeyGroup(5);
        byte[] block = hex("01 0e 12");
        writer.addBlock(KeyedSnapshotFormat.stateId(0), block, 0, block.length);
        byte[] timers = hex("01 0e 00000000000003e8");
        writer.addBlock(KeyedSnapshotFormat.EVENT_TIMERS_ID, timers, 0, timers.length);
        writer.endKeyGroup();
        writer.beginKeyGroup(6);
        writer.endKeyGroup();
        return writer.finish();
    }

    @Test
    void aStreamIsWrittenByteForByteAsDocumented() throws IOException {
        KeyGroupsStateHandle handle = writeExample(factory(1 << 20));

        String body = "04 6c6f6e67 8001 01 03 73756d 01 0b 76616c7565286c6f6e6729";
        String header = "44464b53 00000002 00000019 " + body + crc(body);
        String payload = "02 03 010e12 01 0a 010e00000000000003e8";
        String section5 = "00000005 00000011 " + crc(payload) + payload;
        String section6 = "00000006 00000000 00000000";
        assertThat(HexFormat.of().formatHex(((InlineStateHandle) handle.stream()).bytes()))
                .isEqualTo((header + section5 + section6).replace(" ", ""));
        assertThat(handle.offsets()).containsExactly(41, 70);
        assertThat(crc(body)).isEqualTo("454ccd39");
        assertThat(crc(payload)).as("the checksum in the documented example").isEqualTo(DOCUMENTED_PAYLOAD_CRC);
        System.out.println("keyed snapshot format example: " + HexFormat.of().formatHex(
                ((InlineStateHandle) handle.stream()).bytes()));
    }

    @Test
    void readingGivesTheHeaderAndTheBlocksOfTheWantedKeyGroups() throws IOException {
        KeyGroupsStateHandle handle = writeExample(factory(0));
        List<String> seen = new ArrayList<>();

        KeyedSnapshotFormat.read(handle, new KeyGroupRange(5, 5), new KeyedSnapshotFormat.Visitor() {
            @Override
            public void header(Header header, String source) {
                assertThat(header).isEqualTo(HEADER);
                assertThat(source).contains(((FileSegmentHandle) handle.stream()).file().toString());
            }

            @Override
            public void keyGroup(int keyGroup, List<Block> blocks, String source) {
                for (Block block : blocks) {
                    seen.add(keyGroup + ":" + block.stateId() + ":" + HexFormat.of().formatHex(block.bytes()));
                }
            }
        });

        assertThat(seen).containsExactly("5:2:010e12", "5:1:010e00000000000003e8");
    }

    /**
     * A version-1 stream (before event-time timers: timers at id 0, states from 1), as the earlier
     * release wrote it, with a processing-time timer of key 7 at 1000 in key group 5.
     */
    private static KeyGroupsStateHandle versionOneExample() {
        String body = "04 6c6f6e67 8001 01 03 73756d 01 0b 76616c7565286c6f6e6729";
        String header = "44464b53 00000001 00000019 " + body + crc(body);
        String payload = "01 03 010e12 00 0a 010e00000000000003e8";
        String section5 = "00000005 00000011 " + crc(payload) + payload;
        String section6 = "00000006 00000000 00000000";
        return new KeyGroupsStateHandle(new KeyGroupRange(5, 6), new long[] {41, 70},
                new InlineStateHandle(hex(header + section5 + section6)));
    }

    @Test
    void aVersionOneStreamIsReadWithItsBlocksNumberedAsVersionTwoNumbersThem() throws IOException {
        List<String> seen = new ArrayList<>();

        KeyedSnapshotFormat.read(versionOneExample(), new KeyGroupRange(5, 6), new KeyedSnapshotFormat.Visitor() {
            @Override
            public void header(Header header, String source) {
                assertThat(header).isEqualTo(HEADER);
            }

            @Override
            public void keyGroup(int keyGroup, List<Block> blocks, String source) {
                for (Block block : blocks) {
                    seen.add(keyGroup + ":" + block.stateId() + ":" + HexFormat.of().formatHex(block.bytes()));
                }
            }
        });

        assertThat(seen).containsExactly("5:" + KeyedSnapshotFormat.stateId(0) + ":010e12",
                "5:" + KeyedSnapshotFormat.PROCESSING_TIMERS_ID + ":010e00000000000003e8");
    }

    @Test
    void anUnknownVersionIsAnErrorNamingTheFileAndTheVersionsRead() throws IOException {
        KeyGroupsStateHandle handle = writeExample(factory(0));
        FileSegmentHandle file = (FileSegmentHandle) handle.stream();
        overwrite(file, 7, (byte) 3);

        assertThatThrownBy(() -> readAll(handle)).isInstanceOf(CorruptStateException.class)
                .hasMessageContaining(file.file().toString()).hasMessageContaining("version 3")
                .hasMessageContaining("reads versions 1 to 2");
    }

    private static void overwrite(FileSegmentHandle file, long offset, byte value) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.file().toLocalPath().toFile(), "rw")) {
            raf.seek(offset);
            raf.write(value);
        }
    }

    private static void readAll(KeyGroupsStateHandle handle) throws IOException {
        KeyedSnapshotFormat.read(handle, handle.keyGroupRange(), new KeyedSnapshotFormat.Visitor() {
            @Override
            public void header(Header header, String source) {
            }

            @Override
            public void keyGroup(int keyGroup, List<Block> blocks, String source) {
            }
        });
    }

    @Test
    void aFlippedByteInASectionIsAChecksumErrorNamingFileKeyGroupAndOffset() throws IOException {
        KeyGroupsStateHandle handle = writeExample(factory(0));
        FileSegmentHandle file = (FileSegmentHandle) handle.stream();
        overwrite(file, 41 + 12 + 3, (byte) 0x13);

        assertThatThrownBy(() -> readAll(handle)).isInstanceOf(CorruptStateException.class)
                .hasMessageContaining(file.file().toString()).hasMessageContaining("key group 5 at offset 41")
                .hasMessageContaining("checksum");
    }

    @Test
    void aCorruptHeaderMagicOrVersionIsNamed() throws IOException {
        KeyGroupsStateHandle handle = writeExample(factory(0));
        FileSegmentHandle file = (FileSegmentHandle) handle.stream();

        overwrite(file, 20, (byte) 0x6d);
        assertThatThrownBy(() -> readAll(handle)).isInstanceOf(CorruptStateException.class)
                .hasMessageContaining(file.file().toString()).hasMessageContaining("header fails its checksum");
        overwrite(file, 7, (byte) 9);
        assertThatThrownBy(() -> readAll(handle)).isInstanceOf(CorruptStateException.class)
                .hasMessageContaining("version 9");
        overwrite(file, 0, (byte) 0);
        assertThatThrownBy(() -> readAll(handle)).isInstanceOf(CorruptStateException.class)
                .hasMessageContaining("not a keyed state snapshot");
    }

    @Test
    void aSectionAtAnOffsetThatHoldsAnotherKeyGroupIsRefused() throws IOException {
        KeyGroupsStateHandle handle = writeExample(factory(0));
        KeyGroupsStateHandle wrongOffsets = new KeyGroupsStateHandle(handle.keyGroupRange(), new long[] {70, 70},
                handle.stream());

        assertThatThrownBy(() -> readAll(wrongOffsets)).isInstanceOf(CorruptStateException.class)
                .hasMessageContaining("holds key group 6 where key group 5 was recorded");
    }

    @Test
    void anOffsetOutsideTheStreamIsRefused() throws IOException {
        KeyGroupsStateHandle handle = writeExample(factory(0));
        KeyGroupsStateHandle wrongOffsets = new KeyGroupsStateHandle(handle.keyGroupRange(), new long[] {41, 9999},
                handle.stream());

        assertThatThrownBy(() -> KeyedSnapshotFormat.read(wrongOffsets, new KeyGroupRange(6, 6),
                new KeyedSnapshotFormat.Visitor() {
                    @Override
                    public void header(Header header, String source) {
                    }

                    @Override
                    public void keyGroup(int keyGroup, List<Block> blocks, String source) {
                    }
                })).isInstanceOf(CorruptStateException.class).hasMessageContaining("offset 9999, outside the stream");
    }

    @Test
    void aTruncatedFileIsAnErrorNamingIt() throws IOException {
        KeyGroupsStateHandle handle = writeExample(factory(0));
        FileSegmentHandle file = (FileSegmentHandle) handle.stream();
        try (RandomAccessFile raf = new RandomAccessFile(file.file().toLocalPath().toFile(), "rw")) {
            raf.setLength(50);
        }

        assertThatThrownBy(() -> readAll(handle)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.file().toString()).hasMessageContaining("shorter");
    }
}
