package io.duraflow.state.format;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CorruptStateException;
import io.duraflow.state.storage.StreamStateHandles;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The canonical format of a full keyed-state snapshot ({@link KeyGroupsStateHandle}): a header,
 * then one checksummed section per key group, so a restore reads only the key groups it owns. Drawn
 * byte by byte, with the example {@code KeyedSnapshotFormatTest} checks, in
 * docs/design/checkpoint-files.md#keyedsnapshotformat.
 *
 * <p>Block ids, version 2 (written): {@value #PROCESSING_TIMERS_ID} processing-time timers,
 * {@value #EVENT_TIMERS_ID} event-time timers, {@value #FIRST_STATE_ID} + i the i-th state of the
 * header. Version 1 (still read) had only processing-time timers, at id 0, and numbered states
 * from 1; {@link #read} renumbers its blocks as version 2 numbers them, so a visitor sees the ids
 * of the current version whatever it reads.
 */
public final class KeyedSnapshotFormat {
    public static final int MAGIC = 0x44464B53;
    /** The version written. */
    public static final int VERSION = 2;
    /** The oldest version read. */
    public static final int OLDEST_VERSION = 1;
    /** The block id of processing-time timers. */
    public static final int PROCESSING_TIMERS_ID = 0;
    /** The block id of event-time timers (version 2 on). */
    public static final int EVENT_TIMERS_ID = 1;
    /** The block id of the first state of the header; the others follow in header order. */
    public static final int FIRST_STATE_ID = 2;
    /** The first state's block id in version 1, which had no event-time timers. */
    private static final int V1_FIRST_STATE_ID = 1;
    private static final int SECTION_HEADER_BYTES = 12;
    /** A section or header larger than this is corruption, not state (a key group holds less than 1 GiB). */
    private static final int MAX_SECTION_BYTES = 1 << 30;

    private KeyedSnapshotFormat() {
    }

    /** The block id of the state at {@code index} in the header. */
    public static int stateId(int index) {
        return FIRST_STATE_ID + index;
    }

    /** A header as read, with the version of its stream. */
    private record VersionedHeader(Header header, int version) {
    }

    /** One state as the header lists it. */
    public record StateMeta(String name, StateKind kind, String description) {
        public StateMeta {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(description, "description");
        }
    }

    public record Header(String keySerializerDescription, int maxParallelism, List<StateMeta> states) {
        public Header {
            Objects.requireNonNull(keySerializerDescription, "keySerializerDescription");
            states = List.copyOf(states);
        }
    }

    /**
     * One block of a section: the bytes of one state (or of one domain's timers) in one key group;
     * {@code stateId} is numbered as in {@link #VERSION}.
     */
    public record Block(int stateId, byte[] bytes) {
    }

    /** Receives what {@link #read} finds: the header once, then each key group's blocks in order. */
    public interface Visitor {
        void header(Header header, String source) throws IOException;

        void keyGroup(int keyGroup, List<Block> blocks, String source) throws IOException;
    }

    /** Writes one stream; sections must come in ascending key-group order, one per group of the range. */
    public static final class Writer {
        private final CheckpointOutputStream out;
        private final KeyGroupRange range;
        private final long[] offsets;
        private final DataWriter payload = new DataWriter(64 * 1024);
        private final DataWriter frame = new DataWriter(16);
        private int nextKeyGroup;

        public Writer(CheckpointOutputStream out, KeyGroupRange range, Header header) throws IOException {
            this.out = out;
            this.range = range;
            this.offsets = new long[range.size()];
            this.nextKeyGroup = range.start();
            DataWriter body = new DataWriter();
            body.writeString(header.keySerializerDescription());
            body.writeVarInt(header.maxParallelism());
            body.writeVarInt(header.states().size());
            for (StateMeta state : header.states()) {
                body.writeString(state.name());
                body.writeByte(state.kind().code());
                body.writeString(state.description());
            }
            frame.reset();
            frame.writeInt(MAGIC);
            frame.writeInt(VERSION);
            frame.writeInt(body.position());
            out.write(frame.buffer(), 0, frame.position());
            out.write(body.buffer(), 0, body.position());
            frame.reset();
            frame.writeInt(Crc.of(body.buffer(), 0, body.position()));
            out.write(frame.buffer(), 0, frame.position());
        }

        /** Starts the section of the next key group; add its blocks, then {@link #endKeyGroup()}. */
        public void beginKeyGroup(int keyGroup) {
            if (keyGroup != nextKeyGroup || !range.contains(keyGroup)) {
                throw new IllegalStateException("key group " + keyGroup + " written out of order; expected "
                        + nextKeyGroup + " of " + range);
            }
            payload.reset();
        }

        /** Appends a block; {@code block[offset, offset+length)} holds it. */
        public void addBlock(int stateId, byte[] block, int offset, int length) {
            payload.writeVarInt(stateId);
            payload.writeVarInt(length);
            payload.writeBytes(block, offset, length);
        }

        public void endKeyGroup() throws IOException {
            offsets[nextKeyGroup - range.start()] = out.position();
            frame.reset();
            frame.writeInt(nextKeyGroup);
            frame.writeInt(payload.position());
            frame.writeInt(Crc.of(payload.buffer(), 0, payload.position()));
            out.write(frame.buffer(), 0, frame.position());
            out.write(payload.buffer(), 0, payload.position());
            nextKeyGroup++;
        }

        /** Closes the stream; every key group of the range must have been written. */
        public KeyGroupsStateHandle finish() throws IOException {
            if (nextKeyGroup != range.end() + 1) {
                throw new IllegalStateException("snapshot of " + range + " ended at key group " + nextKeyGroup);
            }
            StreamStateHandle stream = out.closeAndGetHandle();
            return new KeyGroupsStateHandle(range, offsets, stream);
        }
    }

    /**
     * Reads the key groups of {@code handle} that are in {@code range} (the header first). The
     * stream is opened twice: once for the header, once at the first section wanted.
     *
     * @throws CorruptStateException naming the file and offset when a magic number, version,
     *     checksum or length is wrong
     * @throws IOException naming the file when it is missing or shorter than the handle says
     */
    public static void read(KeyGroupsStateHandle handle, KeyGroupRange range, Visitor visitor) throws IOException {
        KeyGroupRange wanted = handle.keyGroupRange().intersection(range);
        String source = StreamStateHandles.describe(handle.stream());
        VersionedHeader header;
        try (InputStream in = StreamStateHandles.open(handle.stream())) {
            header = readHeader(new DataInputStream(in), source);
        }
        visitor.header(header.header(), source);
        if (wanted.isEmpty()) {
            return;
        }
        long offset = handle.offsetOf(wanted.start());
        if (offset < 0 || offset > handle.stream().length() - SECTION_HEADER_BYTES) {
            throw new CorruptStateException(source + ": key group " + wanted.start() + " is recorded at offset "
                    + offset + ", outside the stream; the checkpoint metadata does not match the file");
        }
        try (DataInputStream in = new DataInputStream(StreamStateHandles.open(handle.stream(), offset))) {
            for (int keyGroup = wanted.start(); keyGroup <= wanted.end(); keyGroup++) {
                long expectedOffset = handle.offsetOf(keyGroup);
                if (expectedOffset != offset) {
                    throw new CorruptStateException(source + ": key group " + keyGroup + " is recorded at offset "
                            + expectedOffset + " but the previous section ends at " + offset
                            + "; the checkpoint metadata does not match the file");
                }
                byte[] payload = readSection(in, keyGroup, source, offset);
                offset += SECTION_HEADER_BYTES + payload.length;
                visitor.keyGroup(keyGroup, blocks(payload, header.version(), keyGroup, source, expectedOffset),
                        source);
            }
        } catch (EOFException e) {
            throw new IOException(source + " ends inside a key group section: the file is shorter than written;"
                    + " restore from another checkpoint", e);
        }
    }

    /** Reads one section's frame and payload, checking its key group and checksum. */
    private static byte[] readSection(DataInputStream in, int keyGroup, String source, long offset)
            throws IOException {
        int storedKeyGroup = in.readInt();
        int length = in.readInt();
        int crc = in.readInt();
        if (storedKeyGroup != keyGroup) {
            throw new CorruptStateException(source + ": offset " + offset + " holds key group " + storedKeyGroup
                    + " where key group " + keyGroup + " was recorded; the file is corrupt, restore from another"
                    + " checkpoint");
        }
        if (length < 0 || length > MAX_SECTION_BYTES) {
            throw new CorruptStateException(source + ": key group " + keyGroup + " at offset " + offset
                    + " has a corrupt length " + length + "; restore from another checkpoint");
        }
        byte[] payload = in.readNBytes(length);
        if (payload.length != length) {
            throw new EOFException();
        }
        if (crc != Crc.of(payload, 0, length)) {
            throw new CorruptStateException(source + ": key group " + keyGroup + " at offset " + offset
                    + " fails its checksum; the file is corrupt, restore from another checkpoint");
        }
        return payload;
    }

    private static List<Block> blocks(byte[] payload, int version, int keyGroup, String source, long offset)
            throws CorruptStateException {
        List<Block> blocks = new ArrayList<>();
        DataReader reader = new DataReader(payload);
        try {
            while (reader.hasRemaining()) {
                int stateId = reader.readVarInt();
                int length = reader.readVarInt();
                if (version == 1 && stateId >= V1_FIRST_STATE_ID) {
                    stateId += FIRST_STATE_ID - V1_FIRST_STATE_ID;
                }
                blocks.add(new Block(stateId, reader.readBytes(length)));
            }
        } catch (CorruptDataException e) {
            throw new CorruptStateException(source + ": key group " + keyGroup + " at offset " + offset
                    + " is malformed: " + e.getMessage(), e);
        }
        return blocks;
    }

    private static VersionedHeader readHeader(DataInputStream in, String source) throws IOException {
        try {
            int magic = in.readInt();
            if (magic != MAGIC) {
                throw new CorruptStateException(source + " is not a keyed state snapshot (magic "
                        + Integer.toHexString(magic) + " at offset 0)");
            }
            int version = in.readInt();
            if (version < OLDEST_VERSION || version > VERSION) {
                throw new CorruptStateException(source + " has keyed state format version " + version
                        + " (offset 4); this Duraflow reads versions " + OLDEST_VERSION + " to " + VERSION
                        + ": the file is corrupt or was written by a newer Duraflow");
            }
            int bodyLength = in.readInt();
            if (bodyLength < 0 || bodyLength > MAX_SECTION_BYTES) {
                throw new CorruptStateException(source + ": header length " + bodyLength + " at offset 8 is corrupt");
            }
            byte[] body = in.readNBytes(bodyLength);
            if (body.length != bodyLength) {
                throw new EOFException();
            }
            int crc = in.readInt();
            if (crc != Crc.of(body, 0, body.length)) {
                throw new CorruptStateException(source + ": the header fails its checksum (offset 12, " + bodyLength
                        + " bytes); the file is corrupt, restore from another checkpoint");
            }
            DataReader reader = new DataReader(body);
            String keySerializer = reader.readString();
            int maxParallelism = reader.readVarInt();
            int count = reader.readVarInt();
            List<StateMeta> states = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String name = reader.readString();
                int code = reader.readByte();
                StateKind kind = StateKind.ofCode(code);
                if (kind == null) {
                    throw new CorruptStateException(source + ": state '" + name + "' has unknown kind " + code);
                }
                states.add(new StateMeta(name, kind, reader.readString()));
            }
            return new VersionedHeader(new Header(keySerializer, maxParallelism, states), version);
        } catch (EOFException e) {
            throw new IOException(source + " ends inside its header: the file is shorter than written;"
                    + " restore from another checkpoint", e);
        } catch (CorruptDataException e) {
            throw new CorruptStateException(source + ": malformed header: " + e.getMessage(), e);
        }
    }
}
