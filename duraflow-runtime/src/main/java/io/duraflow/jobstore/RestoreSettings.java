package io.duraflow.jobstore;

import java.util.Objects;

/**
 * What a submitted job restores while it has no completed checkpoint of its own ({@code duraflow
 * run --from-savepoint PATH}); stored with the job, so a new leader that takes the job over before
 * its first checkpoint restores the same state.
 *
 * @param path a savepoint directory, a retained checkpoint's {@code chk-<n>} directory (of any job) or
 *     its {@code _metadata}, as the user gave it
 * @param mode whether the job takes the restored files over
 * @param allowNonRestoredState whether state of operators the job no longer has is dropped (and
 *     logged) instead of failing the submission
 */
public record RestoreSettings(String path, Mode mode, boolean allowNonRestoredState) {
    /** Who owns the restored files. */
    public enum Mode {
        /** The job adopts them as its own retained checkpoint: deleted once its first checkpoint subsumes them. */
        CLAIM,
        /** The default: the job never deletes them or depends on them (its first checkpoint is full). */
        NO_CLAIM
    }

    public RestoreSettings {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(mode, "mode");
        if (path.isBlank()) {
            throw new IllegalArgumentException("empty restore path");
        }
    }

    @Override
    public String toString() {
        return path + " (" + mode.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                + (allowNonRestoredState ? ", allowing non-restored state" : "") + ")";
    }
}
