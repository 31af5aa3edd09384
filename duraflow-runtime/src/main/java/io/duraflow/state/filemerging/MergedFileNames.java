package io.duraflow.state.filemerging;

import java.util.OptionalLong;
import java.util.UUID;

/**
 * Names of physical files: {@code cp<checkpoint id>-<random UUID>}, the id of the checkpoint the
 * file was created for. A run only creates files for checkpoints its JobManager triggered after the
 * run's restore, and never appends to a file of an earlier run; so a file whose checkpoint id is
 * below the first id drawn after a restore was written by an earlier run (a task the JobManager
 * cancelled, which may still have been writing while the restore listed the directories), and the
 * JobManager may delete it once no checkpoint refers to it ({@code CheckpointFileDisposal}). Files
 * named before this scheme (a bare UUID, whose hex digits never include {@code p}) have no id.
 */
public final class MergedFileNames {
    private static final String PREFIX = "cp";

    private MergedFileNames() {
    }

    static String newName(long checkpointId) {
        return PREFIX + checkpointId + "-" + UUID.randomUUID();
    }

    /** The checkpoint a physical file named {@code name} was created for; empty if the name has none. */
    public static OptionalLong createdFor(String name) {
        int dash = name.indexOf('-');
        if (!name.startsWith(PREFIX) || dash <= PREFIX.length() || dash - PREFIX.length() > 18) {
            return OptionalLong.empty();
        }
        for (int i = PREFIX.length(); i < dash; i++) {
            if (name.charAt(i) < '0' || name.charAt(i) > '9') {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.of(Long.parseLong(name.substring(PREFIX.length(), dash)));
    }
}
