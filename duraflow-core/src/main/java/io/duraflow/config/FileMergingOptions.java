package io.duraflow.config;

/**
 * Options of checkpoint file merging (seed 003): a TaskManager writes the state of many
 * checkpoint streams as segments of a few large physical files instead of a file per stream.
 *
 * <pre>
 *   execution.checkpointing.file-merging.enabled                   merge at all (off: a file per stream)
 *   execution.checkpointing.file-merging.across-checkpoint-boundary  keep files open for later checkpoints
 *   execution.checkpointing.file-merging.max-file-size             a physical file takes no segment after this size
 *   execution.checkpointing.file-merging.pool-blocking             wait for a free file instead of opening another
 *   execution.checkpointing.file-merging.max-subtasks-per-file     blocking pool: subtasks sharing a private-state file
 *   execution.checkpointing.file-merging.max-space-amplification   bytes on disk per live byte before files are rewritten
 * </pre>
 */
public final class FileMergingOptions {
    public static final ConfigOption<Boolean> ENABLED = ConfigOption.key("execution.checkpointing.file-merging.enabled")
            .booleanType()
            .defaultValue(false)
            .description("Writes the state of a checkpoint's streams as segments of a few shared physical files:"
                    + " incremental (shared) state per subtask in a directory under shared/, private state per"
                    + " TaskManager in one under taskowned/. Savepoints are never merged. Off: one file per stream.");

    public static final ConfigOption<Boolean> ACROSS_CHECKPOINT_BOUNDARY = ConfigOption.key(
            "execution.checkpointing.file-merging.across-checkpoint-boundary")
            .booleanType()
            .defaultValue(false)
            .description("With file merging, keeps a physical file open after a checkpoint so the next checkpoints"
                    + " append to it (fewer files; space is bounded by max-space-amplification); false: a physical"
                    + " file holds segments of one checkpoint only.");

    public static final ConfigOption<MemorySize> MAX_FILE_SIZE = ConfigOption.key(
            "execution.checkpointing.file-merging.max-file-size")
            .memoryType()
            .defaultValue(MemorySize.ofMebiBytes(32))
            .validator(ConfigValidator.positiveMemory())
            .description("A physical file that has reached this size takes no further segment (a segment that"
                    + " started below it is written whole).");

    public static final ConfigOption<Boolean> POOL_BLOCKING = ConfigOption.key(
            "execution.checkpointing.file-merging.pool-blocking")
            .booleanType()
            .defaultValue(false)
            .description("With file merging, a large stream that finds every physical file of its pool busy waits"
                    + " for one (at most one file per subtask for shared state, and max-subtasks-per-file subtasks"
                    + " per file for private state) instead of opening another file: fewer files, slower uploads.");

    public static final ConfigOption<Integer> MAX_SUBTASKS_PER_FILE = ConfigOption.key(
            "execution.checkpointing.file-merging.max-subtasks-per-file")
            .intType()
            .defaultValue(4)
            .validator(ConfigValidator.intAtLeast(1))
            .description("With a blocking pool, the private-state pool of a TaskManager holds one physical file per"
                    + " this many of the job's subtasks running there (at least one); ignored by the non-blocking"
                    + " pool.");

    public static final ConfigOption<Double> MAX_SPACE_AMPLIFICATION = ConfigOption.key(
            "execution.checkpointing.file-merging.max-space-amplification")
            .doubleType()
            .defaultValue(2.0)
            .validator(ConfigValidator.doubleAtLeast(0.0))
            .description("Bytes of a TaskManager's merged files per byte still used by retained checkpoints, checked"
                    + " at every completed checkpoint: above it the files with most unused bytes take no new"
                    + " segments, their live incremental files are uploaded again, and each file is deleted once no"
                    + " checkpoint uses it. Below 1: no limit.");

    private FileMergingOptions() {
    }
}
