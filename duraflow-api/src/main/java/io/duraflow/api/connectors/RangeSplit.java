package io.duraflow.api.connectors;

import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.util.List;

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

    /**
     * Cuts {@code [from, toExclusive)} into at most {@code splitCount} contiguous, non-empty
     * ranges in ascending order whose sizes differ by at most one (the larger ones first). An
     * empty range has no splits; a range shorter than {@code splitCount} has one split per value.
     * Never overflows, even for the whole long range.
     *
     * @throws IllegalArgumentException if {@code from > toExclusive} or {@code splitCount < 1}
     */
    public static List<RangeSplit> split(long from, long toExclusive, int splitCount) {
        return RangeSplits.split(from, toExclusive, splitCount);
    }

    @Override
    public String splitId() {
        return "range-" + from + "-" + to;
    }
}
