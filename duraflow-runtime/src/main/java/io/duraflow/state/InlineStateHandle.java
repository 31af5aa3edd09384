package io.duraflow.state;

import java.util.Arrays;
import java.util.Objects;

/** State small enough to travel inside the acknowledgement and the checkpoint metadata. */
public record InlineStateHandle(byte[] bytes) implements StreamStateHandle {
    public InlineStateHandle {
        bytes = Objects.requireNonNull(bytes, "bytes").clone();
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public long length() {
        return bytes.length;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof InlineStateHandle that && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "InlineStateHandle[" + bytes.length + " bytes]";
    }
}
