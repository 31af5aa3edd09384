package io.duraflow.state.format;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorStateHandle.Distribution;
import io.duraflow.state.OperatorStateHandle.StateList;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CorruptStateException;
import io.duraflow.state.storage.StreamStateHandles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The stream behind an {@link OperatorStateHandle}: a header naming every list, then
 * self-delimiting, checksummed elements, so redistribution moves single elements by copying
 * offsets. Layout: see docs/design/checkpoint-files.md#operatorsnapshotformat.
 */
public final class OperatorSnapshotFormat {
    public static final int MAGIC = 0x44464F53;
    public static final int VERSION = 1;

    private OperatorSnapshotFormat() {
    }

    /** One list as the header names it. */
    public record ListMeta(String name, Distribution distribution, String description) {
        public ListMeta {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(distribution, "distribution");
            Objects.requireNonNull(description, "description");
        }
    }

    /** The elements of one list read from one handle, as bytes for the list's serializer. */
    public record RestoredList(ListMeta meta, List<byte[]> elements, String source) {
    }

    /** Writes one stream: the header, then elements of any list in any order. */
    public static final class Writer {
        private final CheckpointOutputStream out;
        private final Map<String, ListMeta> lists = new LinkedHashMap<>();
        private final Map<String, List<Long>> offsets = new HashMap<>();
        private final DataWriter frame = new DataWriter(16);

        public Writer(CheckpointOutputStream out, List<ListMeta> lists) throws IOException {
            this.out = out;
            DataWriter body = new DataWriter();
            body.writeVarInt(lists.size());
            for (ListMeta list : lists) {
                this.lists.put(list.name(), list);
                offsets.put(list.name(), new ArrayList<>());
                body.writeString(list.name());
                body.writeByte(list.distribution() == Distribution.SPLIT ? 1 : 2);
                body.writeString(list.description());
            }
            frame.writeInt(MAGIC);
            frame.writeInt(VERSION);
            frame.writeInt(body.position());
            out.write(frame.buffer(), 0, frame.position());
            out.write(body.buffer(), 0, body.position());
            frame.reset();
            frame.writeInt(Crc.of(body.buffer(), 0, body.position()));
            out.write(frame.buffer(), 0, frame.position());
        }

        public void writeElement(String list, byte[] bytes, int offset, int length) throws IOException {
            List<Long> listOffsets = offsets.get(list);
            if (listOffsets == null) {
                throw new IllegalArgumentException("list '" + list + "' is not in the header");
            }
            listOffsets.add(out.position());
            frame.reset();
            frame.writeInt(length);
            frame.writeInt(Crc.of(bytes, offset, length));
            out.write(frame.buffer(), 0, frame.position());
            out.write(bytes, offset, length);
        }

        public OperatorStateHandle finish() throws IOException {
            Map<String, StateList> stateLists = new HashMap<>();
            for (ListMeta list : lists.values()) {
                List<Long> listOffsets = offsets.get(list.name());
                long[] array = new long[listOffsets.size()];
                for (int i = 0; i < array.length; i++) {
                    array[i] = listOffsets.get(i);
                }
                stateLists.put(list.name(), new StateList(list.distribution(), array));
            }
            return new OperatorStateHandle(stateLists, out.closeAndGetHandle());
        }
    }

    /**
     * The lists of {@code handle} with the elements at its offsets. The whole stream is read at
     * once: operator state is small (splits, pending commits).
     */
    public static Map<String, RestoredList> read(OperatorStateHandle handle) throws IOException {
        String source = StreamStateHandles.describe(handle.stream());
        byte[] stream = StreamStateHandles.readAll(handle.stream());
        Map<String, ListMeta> header = readHeader(stream, source);
        Map<String, RestoredList> result = new LinkedHashMap<>();
        for (Map.Entry<String, StateList> entry : handle.lists().entrySet()) {
            ListMeta meta = header.get(entry.getKey());
            if (meta == null) {
                throw new CorruptStateException(source + ": the handle names list '" + entry.getKey()
                        + "', which the stream's header does not; the checkpoint metadata does not match the file");
            }
            if (meta.distribution() != entry.getValue().distribution()) {
                throw new CorruptStateException(source + ": list '" + entry.getKey() + "' is "
                        + meta.distribution() + " in the stream but " + entry.getValue().distribution()
                        + " in its handle");
            }
            List<byte[]> elements = new ArrayList<>();
            for (long offset : entry.getValue().elementOffsets()) {
                elements.add(readElement(stream, offset, entry.getKey(), source));
            }
            result.put(entry.getKey(), new RestoredList(meta, elements, source));
        }
        return result;
    }

    private static Map<String, ListMeta> readHeader(byte[] stream, String source) throws CorruptStateException {
        DataReader in = new DataReader(stream);
        try {
            int magic = in.readInt();
            if (magic != MAGIC) {
                throw new CorruptStateException(source + " is not an operator state snapshot (magic "
                        + Integer.toHexString(magic) + " at offset 0)");
            }
            int version = in.readInt();
            if (version != VERSION) {
                throw new CorruptStateException(source + " has operator state format version " + version
                        + "; this Duraflow reads version " + VERSION);
            }
            int bodyLength = in.readInt();
            if (bodyLength < 0 || bodyLength > in.remaining() - 4) {
                throw new CorruptStateException(source + ": header length " + bodyLength + " at offset 8 is corrupt");
            }
            int crc = new DataReader(stream, 12 + bodyLength, 4).readInt();
            if (crc != Crc.of(stream, 12, bodyLength)) {
                throw new CorruptStateException(source + ": the header fails its checksum; the file is corrupt,"
                        + " restore from another checkpoint");
            }
            DataReader body = new DataReader(stream, 12, bodyLength);
            int count = body.readVarInt();
            Map<String, ListMeta> lists = new HashMap<>();
            for (int i = 0; i < count; i++) {
                String name = body.readString();
                int code = body.readByte();
                if (code != 1 && code != 2) {
                    throw new CorruptStateException(source + ": list '" + name + "' has unknown distribution " + code);
                }
                lists.put(name, new ListMeta(name, code == 1 ? Distribution.SPLIT : Distribution.UNION,
                        body.readString()));
            }
            return lists;
        } catch (CorruptDataException e) {
            throw new CorruptStateException(source + ": malformed header: " + e.getMessage(), e);
        }
    }

    private static byte[] readElement(byte[] stream, long offset, String list, String source)
            throws CorruptStateException {
        if (offset < 0 || offset > stream.length - 8) {
            throw new CorruptStateException(source + ": element of list '" + list + "' at offset " + offset
                    + " is outside the stream of " + stream.length + " bytes");
        }
        DataReader in = new DataReader(stream, (int) offset, stream.length - (int) offset);
        int length = in.readInt();
        int crc = in.readInt();
        if (length < 0 || length > in.remaining()) {
            throw new CorruptStateException(source + ": element of list '" + list + "' at offset " + offset
                    + " has a corrupt length " + length);
        }
        if (crc != Crc.of(stream, (int) offset + 8, length)) {
            throw new CorruptStateException(source + ": element of list '" + list + "' at offset " + offset
                    + " fails its checksum; the file is corrupt, restore from another checkpoint");
        }
        return in.readBytes(length);
    }
}
