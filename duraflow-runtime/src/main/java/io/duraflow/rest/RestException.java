package io.duraflow.rest;

/**
 * A request the API answers with an error: an HTTP status, a message for people and, for a bad
 * request, the field (of the body, path or query) that is wrong.
 */
final class RestException extends RuntimeException {
    private final int status;
    private final String field;

    RestException(int status, String message) {
        this(status, message, "");
    }

    RestException(int status, String message, String field) {
        super(message, null, false, false);
        this.status = status;
        this.field = field == null ? "" : field;
    }

    static RestException badRequest(String field, String message) {
        return new RestException(400, message, field);
    }

    int status() {
        return status;
    }

    String field() {
        return field;
    }
}
