package io.duraflow.api.connectors;

import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;

/**
 * The indexes {@code next, next + stride, next + 2*stride, ...} below {@code end} ({@link
 * Long#MAX_VALUE}: no end) of a {@link DataGeneratorSource}. Split {@code j} of {@code k} starts
 * at {@code j} with stride {@code k}, so k splits together cover every index once and each reader
 * sees a spread of the whole sequence. {@code first} (the index it started at) names the split.
 *
 * <p>Wire format ({@link #SERIALIZER}): {@code varint version (1) | varlong first | varlong next |
 * varint stride | varlong end}.
 */
public record StrideSplit(long first, long next, int stride, long end) implements SourceSplit {
    private static final int FORMAT_VERSION = 1;

    public static final SplitSerializer<StrideSplit> SERIALIZER = new SplitSerializer<>() {
        @Override
        public void write(StrideSplit split, DataWriter out) {
            out.writeVarInt(FORMAT_VERSION);
            out.writeVarLong(split.first);
            out.writeVarLong(split.next);
            out.writeVarInt(split.stride);
            out.writeVarLong(split.end);
        }

        @Override
        public StrideSplit read(DataReader in) {
            int version = in.readVarInt();
            if (version != FORMAT_VERSION) {
                throw new CorruptDataException("unsupported stride split format version " + version);
            }
            return new StrideSplit(in.readVarLong(), in.readVarLong(), in.readVarInt(), in.readVarLong());
        }
    };

    public StrideSplit {
        if (first < 0 || next < first || stride < 1 || (next - first) % stride != 0) {
            throw new IllegalArgumentException("bad stride split first=" + first + " next=" + next + " stride=" + stride);
        }
    }

    public boolean isExhausted() {
        return next >= end;
    }

    @Override
    public String splitId() {
        return "stride-" + first + "/" + stride;
    }
}
