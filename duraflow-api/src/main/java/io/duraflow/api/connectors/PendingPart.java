package io.duraflow.api.connectors;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;

/**
 * A {@link FileSink} committable: a closed, flushed in-progress file and the name it gets when
 * committed (both absolute paths, in the same directory). Checkpoint format
 * ({@link #SERIALIZER}): {@code varint version (1) | string inProgressPath | string finalPath}.
 */
public record PendingPart(String inProgressPath, String finalPath) {
    private static final int FORMAT_VERSION = 1;

    public static final TypeSerializer<PendingPart> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void write(PendingPart part, DataWriter out) {
            out.writeVarInt(FORMAT_VERSION);
            out.writeString(part.inProgressPath);
            out.writeString(part.finalPath);
        }

        @Override
        public PendingPart read(DataReader in) {
            int version = in.readVarInt();
            if (version != FORMAT_VERSION) {
                throw new CorruptDataException("unsupported file sink committable format version " + version
                        + " (this build reads " + FORMAT_VERSION + ")");
            }
            return new PendingPart(in.readString(), in.readString());
        }

        @Override
        public String description() {
            return "file-sink-pending-part-v" + FORMAT_VERSION;
        }
    };

    public PendingPart {
        if (inProgressPath == null || inProgressPath.isEmpty() || finalPath == null || finalPath.isEmpty()) {
            throw new IllegalArgumentException("a pending part needs an in-progress and a final path");
        }
    }
}
