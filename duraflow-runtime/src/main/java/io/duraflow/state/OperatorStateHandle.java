package io.duraflow.state;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * Operator (non-keyed) state of one parallel instance: named lists written into one stream, each
 * element at a recorded offset, so a restore with another parallelism can hand out single
 * elements ({@link Distribution#SPLIT}) or give every instance all of them ({@link
 * Distribution#UNION}).
 */
public record OperatorStateHandle(Map<String, StateList> lists, StreamStateHandle stream) {
    public enum Distribution {
        SPLIT,
        UNION
    }

    /** One named list: how it is redistributed and where each element starts. */
    public record StateList(Distribution distribution, long[] elementOffsets) {
        public StateList {
            Objects.requireNonNull(distribution, "distribution");
            elementOffsets = elementOffsets.clone();
        }

        @Override
        public long[] elementOffsets() {
            return elementOffsets.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof StateList that && distribution == that.distribution
                    && Arrays.equals(elementOffsets, that.elementOffsets);
        }

        @Override
        public int hashCode() {
            return 31 * distribution.hashCode() + Arrays.hashCode(elementOffsets);
        }
    }

    public OperatorStateHandle {
        lists = Map.copyOf(lists);
        Objects.requireNonNull(stream, "stream");
    }
}
