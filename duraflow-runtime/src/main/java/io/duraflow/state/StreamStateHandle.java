package io.duraflow.state;

/** A run of bytes of state in checkpoint storage. */
public sealed interface StreamStateHandle permits FileSegmentHandle, InlineStateHandle {
    /** Bytes this handle covers. */
    long length();
}
