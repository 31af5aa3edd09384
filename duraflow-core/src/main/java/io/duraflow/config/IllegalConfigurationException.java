package io.duraflow.config;

/**
 * A configuration key is unknown, a value does not parse or is out of range, or a configuration
 * file is missing or malformed. The message is one line that names the key, the value, where it
 * came from and what is expected, so it can be shown to the user as is.
 */
public final class IllegalConfigurationException extends IllegalArgumentException {
    public IllegalConfigurationException(String message) {
        super(message);
    }

    public IllegalConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
