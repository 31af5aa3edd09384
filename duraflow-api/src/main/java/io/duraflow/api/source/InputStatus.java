package io.duraflow.api.source;

/** What a reader says after {@link SourceReader#pollNext}. */
public enum InputStatus {
    /** Call pollNext again right away. */
    MORE_AVAILABLE,
    /** Nothing to read until the enumerator sends more splits (or says there are none). */
    NOTHING_AVAILABLE,
    /** All splits are read and no more will come. */
    END_OF_INPUT
}
