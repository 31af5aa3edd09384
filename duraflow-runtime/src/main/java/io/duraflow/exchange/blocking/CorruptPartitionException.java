package io.duraflow.exchange.blocking;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A partition's data or index file is not what {@link PartitionFileWriter} wrote: torn,
 * truncated, bit-flipped or of another format. The message is one line naming the file and,
 * where it helps, the byte offset of the problem.
 */
public final class CorruptPartitionException extends IOException {
    public CorruptPartitionException(String message) {
        super(message);
    }

    public CorruptPartitionException(String message, Throwable cause) {
        super(message, cause);
    }

    static CorruptPartitionException index(Path indexFile, String problem) {
        return new CorruptPartitionException("corrupt partition index " + indexFile + ": " + problem);
    }

    static CorruptPartitionException data(Path dataFile, String problem) {
        return new CorruptPartitionException("corrupt partition data " + dataFile + ": " + problem);
    }

    static CorruptPartitionException frame(Path dataFile, long frameOffset, int subpartition, String problem) {
        return data(dataFile, "frame at offset " + frameOffset + " (subpartition " + subpartition + "): " + problem);
    }
}
