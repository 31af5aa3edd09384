package io.duraflow.state.storage;

import java.io.IOException;

/**
 * Checkpointed state whose bytes are not what was written: a bad magic number or version, a
 * checksum mismatch, a record cut short. The message names the file (or says the state was
 * inline) and the offset.
 */
public final class CorruptStateException extends IOException {
    public CorruptStateException(String message) {
        super(message);
    }

    public CorruptStateException(String message, Throwable cause) {
        super(message, cause);
    }
}
