package io.duraflow.jobmanager.store;

import java.util.regex.Pattern;

/**
 * The job ids the stores accept: the Dispatcher's pattern, which makes every id a safe file name
 * (no separators, no leading dot, so never {@code ..} or a hidden temp file).
 */
final class JobIds {
    static final String REGEX = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";
    private static final Pattern PATTERN = Pattern.compile(REGEX);

    private JobIds() {
    }

    /**
     * Returns {@code jobId} if it is valid.
     *
     * @throws IllegalArgumentException naming the id and the rule
     */
    static String requireValid(String jobId) {
        if (jobId == null || !PATTERN.matcher(jobId).matches()) {
            throw new IllegalArgumentException("invalid job id '" + jobId
                    + "': expected 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return jobId;
    }
}
