package io.duraflow.cli;

/** An error the user can fix; printed as one line, with the stack trace only under --verbose. */
public final class CliException extends RuntimeException {
    private final int exitCode;

    public CliException(String message) {
        this(message, 1, null);
    }

    CliException(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
