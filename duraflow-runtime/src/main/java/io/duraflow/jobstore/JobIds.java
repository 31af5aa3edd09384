package io.duraflow.jobstore;

import java.util.regex.Pattern;

/**
 * The job ids Duraflow accepts (the Dispatcher and the stores check the same rule); every id is a safe file name
 * (no separators, no leading dot, so never {@code ..} or a hidden temp file).
 */
public final class JobIds {
    static final String REGEX = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";
    private static final Pattern PATTERN = Pattern.compile(REGEX);

    private JobIds() {
    }

    /** Whether {@code jobId} is a valid job id. */
    public static boolean isValid(String jobId) {
        return jobId != null && PATTERN.matcher(jobId).matches();
    }

    /**
     * Returns {@code jobId} if it is valid.
     *
     * @throws IllegalArgumentException naming the id and the rule
     */
    static String requireValid(String jobId) {
        if (!isValid(jobId)) {
            throw new IllegalArgumentException("invalid job id '" + jobId
                    + "': expected 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return jobId;
    }
}
