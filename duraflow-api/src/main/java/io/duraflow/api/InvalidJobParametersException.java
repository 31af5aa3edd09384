package io.duraflow.api;

/** The parameters given to a job are missing, malformed or unknown. The message says which. */
public class InvalidJobParametersException extends IllegalArgumentException {
    public InvalidJobParametersException(String message) {
        super(message);
    }
}
