package io.duraflow.examples.cdc;

import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;

/**
 * A unit of work of a {@link SnapshotChangelogSource}: a chunk of the base table (rows {@code
 * firstRow .. firstRow + rows - 1}, starting at byte {@code offset}), read whole or not at all,
 * or the change log from byte {@code offset} (its line {@code firstRow}), whose position is exact
 * at every line.
 *
 * <p>Wire and checkpoint format ({@link #SERIALIZER}):
 * <pre>
 *   varint version (1) | byte kind (0 = chunk, 1 = change log) | string path | varlong offset
 *   | varlong firstRow | chunk only: varint index | varint chunks | varint rows
 * </pre>
 */
public record CdcSplit(Kind kind, String path, long offset, long firstRow, int index, int chunks, int rows)
        implements SourceSplit {
    private static final int FORMAT_VERSION = 1;

    /** What a split reads. */
    public enum Kind {
        CHUNK,
        CHANGELOG
    }

    public static final SplitSerializer<CdcSplit> SERIALIZER = new SplitSerializer<>() {
        @Override
        public void write(CdcSplit split, DataWriter out) {
            out.writeVarInt(FORMAT_VERSION);
            out.writeByte(split.kind.ordinal());
            out.writeString(split.path);
            out.writeVarLong(split.offset);
            out.writeVarLong(split.firstRow);
            if (split.kind == Kind.CHUNK) {
                out.writeVarInt(split.index);
                out.writeVarInt(split.chunks);
                out.writeVarInt(split.rows);
            }
        }

        @Override
        public CdcSplit read(DataReader in) {
            int version = in.readVarInt();
            if (version != FORMAT_VERSION) {
                throw new CorruptDataException("unsupported change-data-capture split format version " + version);
            }
            int kind = in.readByte();
            if (kind < 0 || kind > 1) {
                throw new CorruptDataException("unknown change-data-capture split kind " + kind);
            }
            String path = in.readString();
            long offset = in.readVarLong();
            long firstRow = in.readVarLong();
            if (kind == Kind.CHUNK.ordinal()) {
                return chunk(path, in.readVarInt(), in.readVarInt(), firstRow, in.readVarInt(), offset);
            }
            return changelog(path, offset, firstRow);
        }
    };

    public CdcSplit {
        if (path == null || path.isEmpty() || offset < 0 || firstRow < 0) {
            throw new IllegalArgumentException("bad change-data-capture split " + kind + " " + path + " at byte "
                    + offset + ", row " + firstRow);
        }
        if (kind == Kind.CHUNK && (index < 0 || index >= chunks || rows < 1)) {
            throw new IllegalArgumentException("bad chunk " + index + " of " + chunks + " with " + rows + " rows");
        }
    }

    /** Chunk {@code index} (of {@code chunks}) of the table: {@code rows} rows from row {@code firstRow}, at byte {@code offset}. */
    public static CdcSplit chunk(String path, int index, int chunks, long firstRow, int rows, long offset) {
        return new CdcSplit(Kind.CHUNK, path, offset, firstRow, index, chunks, rows);
    }

    /** The change log from byte {@code offset}, which is the start of its line {@code line} (0-based). */
    public static CdcSplit changelog(String path, long offset, long line) {
        return new CdcSplit(Kind.CHANGELOG, path, offset, line, 0, 0, 0);
    }

    /** "chunk 3 of 120 of table.csv (rows 3000-3999)" or "the change log changes.csv from line 17". */
    public String describe() {
        String file = java.nio.file.Path.of(path).getFileName().toString();
        return kind == Kind.CHUNK
                ? "chunk " + index + " of " + chunks + " of " + file + " (rows " + firstRow + "-" + (firstRow + rows - 1)
                        + ")"
                : "the change log " + file + " from line " + firstRow;
    }

    @Override
    public String splitId() {
        return kind == Kind.CHUNK ? "chunk-" + index : "changelog";
    }
}
