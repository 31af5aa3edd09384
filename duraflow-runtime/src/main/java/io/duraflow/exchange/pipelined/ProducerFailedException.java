package io.duraflow.exchange.pipelined;

import java.io.IOException;

/** The producer of a subpartition went away before its end: aborted, released, or its stream to us broke. */
public final class ProducerFailedException extends IOException {
    public ProducerFailedException(String message) {
        super(message);
    }

    public ProducerFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
