package io.duraflow.config;

/**
 * Options for the state of streaming jobs: which backend keeps keyed state while a task runs, and
 * how its snapshots are written to checkpoint storage.
 *
 * <pre>
 *   state.backend.type              heap: state lives in objects on the heap; snapshots copy it whole
 *   state.storage.inline-threshold  state streams of at most this many bytes travel inside the checkpoint's
 *                                   metadata instead of becoming files of their own
 * </pre>
 */
public final class StateOptions {
    /** Where keyed state lives while the task runs; value of {@code state.backend.type}. */
    public enum StateBackendType {
        /** Objects in maps on the heap, one map per state and key group, copied on write while a snapshot is written. */
        HEAP
    }

    /** Above this, a single inline handle would make every acknowledgement and {@code _metadata} file heavy. */
    private static final MemorySize MAX_INLINE_THRESHOLD = MemorySize.ofMebiBytes(1);

    public static final ConfigOption<StateBackendType> BACKEND_TYPE = ConfigOption.key("state.backend.type")
            .enumType(StateBackendType.class)
            .defaultValue(StateBackendType.HEAP)
            .description("Where keyed state lives while a streaming task runs: 'heap' keeps it as objects in"
                    + " memory and writes a full copy at every checkpoint.");

    public static final ConfigOption<MemorySize> INLINE_THRESHOLD = ConfigOption.key("state.storage.inline-threshold")
            .memoryType()
            .defaultValue(MemorySize.ofKibiBytes(16))
            .validator(ConfigValidator.of(v -> v.bytes() >= 0 && v.bytes() <= MAX_INLINE_THRESHOLD.bytes(),
                    "a memory size between 0 bytes and 1 mb such as '16 kb'"))
            .description("State written for a checkpoint by one operator that is at most this size is kept inside"
                    + " the checkpoint's metadata instead of in a file of its own, so small state costs no file;"
                    + " 0 writes every non-empty piece of state to a file.");

    private StateOptions() {
    }
}
