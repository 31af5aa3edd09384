package io.duraflow.state.filemerging;

import io.duraflow.config.Configuration;
import io.duraflow.config.FileMergingOptions;
import io.duraflow.config.StateOptions;

/**
 * How a TaskManager merges a job's checkpoint files: the {@link FileMergingOptions} of the job, read
 * once.
 *
 * @param acrossCheckpoints a physical file takes segments of later checkpoints too
 * @param maxFileSizeBytes a file at or above this size takes no new segment
 * @param blockingPool a large stream waits for a busy file instead of opening another
 * @param maxSubtasksPerFile a private-state file takes segments of at most this many subtasks
 * @param maxSpaceAmplification bytes on disk per live byte before files are rewritten; below 1: no limit
 * @param inlineThresholdBytes streams of at most this many bytes are inlined, no file at all
 * @param appendBufferBytes streams up to this size are collected in memory and appended in one
 *     write (a file is held only for that write); larger ones hold a file while they are written
 * @param maxFilePoolSize the most open files a non-blocking pool keeps ({@link FilePool} rule 3)
 */
public record FileMergingSettings(boolean acrossCheckpoints, long maxFileSizeBytes, boolean blockingPool,
        int maxSubtasksPerFile, double maxSpaceAmplification, int inlineThresholdBytes, int appendBufferBytes,
        int maxFilePoolSize) {
    /** Streams up to this size are appended whole: larger than most small state, small enough to keep in memory. */
    public static final int DEFAULT_APPEND_BUFFER_BYTES = 4 * 1024 * 1024;

    public FileMergingSettings {
        if (maxFileSizeBytes < 1 || maxSubtasksPerFile < 1 || inlineThresholdBytes < 0
                || appendBufferBytes < inlineThresholdBytes || maxFilePoolSize < 1) {
            throw new IllegalArgumentException("file merging settings " + maxFileSizeBytes + ", " + maxSubtasksPerFile
                    + ", " + inlineThresholdBytes + ", " + appendBufferBytes + ", " + maxFilePoolSize);
        }
    }

    /** With the default {@code max-file-pool-size}. */
    public FileMergingSettings(boolean acrossCheckpoints, long maxFileSizeBytes, boolean blockingPool,
            int maxSubtasksPerFile, double maxSpaceAmplification, int inlineThresholdBytes, int appendBufferBytes) {
        this(acrossCheckpoints, maxFileSizeBytes, blockingPool, maxSubtasksPerFile, maxSpaceAmplification,
                inlineThresholdBytes, appendBufferBytes, FileMergingOptions.MAX_FILE_POOL_SIZE.defaultValue());
    }

    /** Whether {@code config} turns file merging on. */
    public static boolean isEnabled(Configuration config) {
        return config.get(FileMergingOptions.ENABLED);
    }

    public static FileMergingSettings from(Configuration config) {
        int inline = (int) config.get(StateOptions.INLINE_THRESHOLD).bytes();
        return new FileMergingSettings(config.get(FileMergingOptions.ACROSS_CHECKPOINT_BOUNDARY),
                config.get(FileMergingOptions.MAX_FILE_SIZE).bytes(), config.get(FileMergingOptions.POOL_BLOCKING),
                config.get(FileMergingOptions.MAX_SUBTASKS_PER_FILE),
                config.get(FileMergingOptions.MAX_SPACE_AMPLIFICATION), inline,
                Math.max(inline, DEFAULT_APPEND_BUFFER_BYTES), config.get(FileMergingOptions.MAX_FILE_POOL_SIZE));
    }

    /** Whether space amplification is controlled at all. */
    public boolean controlsSpace() {
        return maxSpaceAmplification >= 1.0;
    }
}
