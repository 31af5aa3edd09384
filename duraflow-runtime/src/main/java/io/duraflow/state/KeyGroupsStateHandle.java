package io.duraflow.state;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A full snapshot of keyed state: one stream in which key group {@code range.start() + i} starts
 * at {@code offsets[i]} (and ends where the next begins, or at the stream's end), so a restore
 * reads only the key groups it owns.
 */
public record KeyGroupsStateHandle(KeyGroupRange range, long[] offsets, StreamStateHandle stream)
        implements KeyedStateHandle {
    public KeyGroupsStateHandle {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(stream, "stream");
        offsets = offsets.clone();
        if (offsets.length != range.size()) {
            throw new IllegalArgumentException(offsets.length + " offsets for key groups " + range);
        }
    }

    @Override
    public long[] offsets() {
        return offsets.clone();
    }

    /** Where key group {@code keyGroup} (in this handle's range) starts in {@link #stream()}. */
    public long offsetOf(int keyGroup) {
        if (!range.contains(keyGroup)) {
            throw new IllegalArgumentException("key group " + keyGroup + " is not in " + range);
        }
        return offsets[keyGroup - range.start()];
    }

    @Override
    public KeyGroupRange keyGroupRange() {
        return range;
    }

    @Override
    public KeyGroupsStateHandle intersection(KeyGroupRange other) {
        KeyGroupRange common = range.intersection(other);
        if (common.isEmpty()) {
            return null;
        }
        long[] part = Arrays.copyOfRange(offsets, common.start() - range.start(), common.end() - range.start() + 1);
        return new KeyGroupsStateHandle(common, part, stream);
    }

    @Override
    public long stateSize() {
        return stream.length();
    }

    @Override
    public List<StreamStateHandle> streams() {
        return List.of(stream);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KeyGroupsStateHandle that && range.equals(that.range)
                && Arrays.equals(offsets, that.offsets) && stream.equals(that.stream);
    }

    @Override
    public int hashCode() {
        return Objects.hash(range, Arrays.hashCode(offsets), stream);
    }
}
