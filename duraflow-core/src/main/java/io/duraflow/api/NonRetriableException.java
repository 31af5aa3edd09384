package io.duraflow.api;

/**
 * Thrown by user code or the engine when running the task again cannot succeed (bad input, a
 * misconfiguration, a bug that fails the same way every time): the job fails at once with its
 * cause instead of using up its restarts. Anywhere in a task failure's cause chain it counts.
 */
public class NonRetriableException extends RuntimeException {
    public NonRetriableException(String message) {
        super(message);
    }

    public NonRetriableException(String message, Throwable cause) {
        super(message, cause);
    }
}
