package io.duraflow.api.types;

/** Serialized data did not have the expected shape: truncated, or written by another serializer. */
public class CorruptDataException extends RuntimeException {
    public CorruptDataException(String message) {
        super(message);
    }

    public CorruptDataException(String message, Throwable cause) {
        super(message, cause);
    }
}
