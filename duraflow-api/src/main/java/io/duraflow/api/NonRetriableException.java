package io.duraflow.api;

/**
 * Thrown by user code or the engine when running the task again cannot succeed: the same input,
 * code and configuration would fail the same way (a record the job cannot parse, a key selector
 * that returns null, a limit the configuration sets too low). The job fails at once with its
 * cause instead of spending its restart budget on attempts that are bound to fail. Faults a
 * restart may cure (a lost TaskManager, a missing partition, an I/O error) must not use it.
 *
 * <p>The message should say what to change, as every error message of Duraflow does.
 */
public class NonRetriableException extends RuntimeException {
    public NonRetriableException(String message) {
        super(message);
    }

    public NonRetriableException(String message, Throwable cause) {
        super(message, cause);
    }
}
