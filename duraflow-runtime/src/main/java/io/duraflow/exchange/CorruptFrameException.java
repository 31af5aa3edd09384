package io.duraflow.exchange;

import io.duraflow.api.types.CorruptDataException;

/**
 * A byte array of frames (for example a chunk received over the network) does not decode: a
 * frame is cut off, its checksum does not match, or a record runs past its payload. Unchecked,
 * like {@link CorruptDataException}, because it surfaces while iterating records.
 */
public final class CorruptFrameException extends CorruptDataException {
    public CorruptFrameException(String source, long offset, String problem) {
        super("corrupt frame in " + source + " at offset " + offset + ": " + problem);
    }

    public CorruptFrameException(String source, long offset, String problem, Throwable cause) {
        super("corrupt frame in " + source + " at offset " + offset + ": " + problem, cause);
    }
}
