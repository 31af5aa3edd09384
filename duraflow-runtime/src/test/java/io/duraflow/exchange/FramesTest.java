package io.duraflow.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Types;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FramesTest {
    private static byte[] payloadOf(String... records) {
        DataWriter payload = new DataWriter();
        DataWriter scratch = new DataWriter();
        for (String record : records) {
            scratch.reset();
            Types.STRING.write(record, scratch);
            payload.writeVarInt(scratch.position());
            payload.writeBytes(scratch.buffer(), 0, scratch.position());
        }
        return payload.toByteArray();
    }

    private static byte[] twoFrames() {
        DataWriter chunk = new DataWriter();
        byte[] first = payloadOf("a", "bb");
        byte[] second = payloadOf("ccc");
        Frames.write(chunk, 4, first, 0, first.length);
        Frames.write(chunk, 9, second, 0, second.length);
        return chunk.toByteArray();
    }

    @Test
    void encodesAndDecodesFramesAndRecords() {
        FrameIterator frames = Frames.iterate(twoFrames(), "peer tm-1");
        assertThat(frames.next()).isTrue();
        assertThat(frames.subpartition()).isEqualTo(4);
        RecordIterator records = frames.records();
        assertThat(records.next(Types.STRING)).isEqualTo("a");
        assertThat(records.next(Types.STRING)).isEqualTo("bb");
        assertThat(records.hasNext()).isFalse();
        assertThat(frames.next()).isTrue();
        assertThat(frames.subpartition()).isEqualTo(9);
        assertThat(frames.records().next(Types.STRING)).isEqualTo("ccc");
        assertThat(frames.next()).isFalse();
    }

    @Test
    void singleFrameEncodingMatchesStreamEncoding() {
        byte[] payload = payloadOf("x", "y");
        byte[] frame = Frames.encode(2, payload, 0, payload.length);
        DataWriter out = new DataWriter();
        Frames.write(out, 2, payload, 0, payload.length);
        assertThat(frame).isEqualTo(out.toByteArray());
    }

    @Test
    void cutOffChunkNamesTheSource() {
        byte[] chunk = twoFrames();
        byte[] cut = Arrays.copyOf(chunk, chunk.length - 2);
        FrameIterator frames = Frames.iterate(cut, "partition 7 from tm-3");
        assertThat(frames.next()).isTrue();
        assertThatThrownBy(frames::next)
                .isInstanceOf(CorruptFrameException.class)
                .hasMessageStartingWith("corrupt frame in partition 7 from tm-3 at offset ")
                .hasMessageContaining("exceeds");
    }

    @Test
    void flippedByteIsAChecksumError() {
        byte[] chunk = twoFrames();
        chunk[chunk.length - 1] ^= 1;
        FrameIterator frames = Frames.iterate(chunk, "src");
        assertThat(frames.next()).isTrue();
        int secondFrame = Frames.HEADER_BYTES + frames.payloadLength();
        assertThatThrownBy(frames::next)
                .isInstanceOf(CorruptFrameException.class)
                .hasMessage("corrupt frame in src at offset " + secondFrame + ": checksum mismatch");
    }

    @Test
    void wrongSerializerIsReported() {
        byte[] payload = payloadOf("hello");
        RecordIterator records = Frames.records(payload, 0, payload.length, "src");
        assertThatThrownBy(() -> records.next(Types.LONG))
                .isInstanceOf(CorruptFrameException.class)
                .hasMessageContaining("long");
    }

    @Test
    void recordRunningPastThePayloadIsReported() {
        DataWriter payload = new DataWriter();
        payload.writeVarInt(50);
        payload.writeBytes(new byte[10]);
        RecordIterator records = Frames.records(payload.buffer(), 0, payload.position(), "src");
        assertThatThrownBy(records::next)
                .isInstanceOf(CorruptFrameException.class)
                .hasMessage("corrupt frame in src at offset 0: record length 50 exceeds the 10 payload bytes left");
    }
}
