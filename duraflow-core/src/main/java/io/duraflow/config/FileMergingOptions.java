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
 *   execution.checkpointing.file-merging.max-file-pool-size        open files a pool keeps for concurrent writers
 *   execution.checkpointing.file-merging.max-subtasks-per-file     subtasks sharing a private-state file
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

    public static final ConfigOption<Integer> MAX_FILE_POOL_SIZE = ConfigOption.key(
            "execution.checkpointing.file-merging.max-file-pool-size")
            .intType()
            .defaultValue(16)
            .validator(ConfigValidator.intAtLeast(1))
            .description("With file merging, the most open physical files a pool (a subtask's shared state, or the"
                    + " private state of the job's tasks on a TaskManager) keeps for concurrent writers; the private"
                    + " pool keeps at least one per max-subtasks-per-file subtasks. A non-blocking pool at its bound"
                    + " never waits: it closes an idle file it may not use, or, when every file is held, writes the"
                    + " stream to a file of its own that is closed after that one segment.");

    public static final ConfigOption<Integer> MAX_SUBTASKS_PER_FILE = ConfigOption.key(
            "execution.checkpointing.file-merging.max-subtasks-per-file")
            .intType()
            .defaultValue(4)
            .validator(ConfigValidator.intAtLeast(1))
            .description("With file merging, a private-state physical file takes segments of at most this many of the"
                    + " job's subtasks on a TaskManager (blocking or not), so the private pool holds at least one file"
                    + " per this many subtasks; a blocking pool holds exactly that many.");

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
