package io.duraflow.api.connectors;

import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;

/**
 * The indexes {@code [from, to)} of a {@link SequenceSource} or {@link GeneratedSource}.
 * Wire format ({@link #SERIALIZER}): {@code varint version (1) | zigzag varlong from | zigzag varlong to}.
 */
public record RangeSplit(long from, long to) implements SourceSplit {
    private static final int FORMAT_VERSION = 1;

    /** Writes range splits for the wire and the job event log. */
    public static final SplitSerializer<RangeSplit> SERIALIZER = new SplitSerializer<>() {
        @Override
        public void write(RangeSplit split, DataWriter out) {
            out.writeVarInt(FORMAT_VERSION);
            out.writeSignedVarLong(split.from);
            out.writeSignedVarLong(split.to);
        }

        @Override
        public RangeSplit read(DataReader in) {
            int version = in.readVarInt();
            if (version != FORMAT_VERSION) {
                throw new CorruptDataException("unsupported range split format version " + version);
            }
            return new RangeSplit(in.readSignedVarLong(), in.readSignedVarLong());
        }
    };

    public RangeSplit {
        if (from > to) {
            throw new IllegalArgumentException("range split from " + from + " is after to " + to);
        }
    }

    @Override
    public String splitId() {
        return "range-" + from + "-" + to;
    }
}
