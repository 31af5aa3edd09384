package io.duraflow.api.connectors;

import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;

/**
 * The bytes {@code [start, start + length)} of one file; it holds the lines whose first byte
 * lies in that range (the last of them may end beyond it). Wire format ({@link #SERIALIZER}):
 * {@code varint version (1) | string path | varlong start | varlong length}.
 */
public record FileSplit(String path, long start, long length) implements SourceSplit {
    private static final int FORMAT_VERSION = 1;

    /** Writes file splits for the wire and the job event log. */
    public static final SplitSerializer<FileSplit> SERIALIZER = new SplitSerializer<>() {
        @Override
        public void write(FileSplit split, DataWriter out) {
            out.writeVarInt(FORMAT_VERSION);
            out.writeString(split.path);
            out.writeVarLong(split.start);
            out.writeVarLong(split.length);
        }

        @Override
        public FileSplit read(DataReader in) {
            int version = in.readVarInt();
            if (version != FORMAT_VERSION) {
                throw new CorruptDataException("unsupported file split format version " + version);
            }
            return new FileSplit(in.readString(), in.readVarLong(), in.readVarLong());
        }
    };

    public FileSplit {
        if (path == null || path.isEmpty()) {
            throw new IllegalArgumentException("file split needs a path");
        }
        if (start < 0 || length < 1) {
            throw new IllegalArgumentException("bad file split range " + start + "+" + length + " of " + path);
        }
    }

    /** The offset just past the split's last byte. */
    public long end() {
        return start + length;
    }

    @Override
    public String splitId() {
        return path + ":" + start + "+" + length;
    }
}
