package io.duraflow.jobstore;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The jar a job was submitted from, as its job graph records it: stored under its SHA-256 in the
 * job's directory ({@code artifacts/<sha256>.jar}), deleted with that directory by the job's cleanup.
 *
 * @param sha256 64 lower-case hex digits
 * @param fileName the jar's name as the user gave it, for messages
 * @param size its length in bytes
 */
public record JobJarRef(String sha256, String fileName, long size) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    public JobJarRef {
        Objects.requireNonNull(fileName, "fileName");
        if (sha256 == null || !SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("a jar's SHA-256 must be 64 lower-case hex digits, got '" + sha256 + "'");
        }
        if (size < 0) {
            throw new IllegalArgumentException("jar " + fileName + ": size " + size + " must not be negative");
        }
    }
}
