package io.duraflow.api.windowing;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;

/**
 * What a window operator keeps per window in keyed state: the incremental accumulator (null when
 * the window keeps all its records, or has none since a purge), how many records it kept (the
 * next record's index), and the count its trigger sees.
 */
record WindowContents(Object accumulator, long elements, long sinceFire) {
    static final WindowContents EMPTY = new WindowContents(null, 0, 0);

    WindowContents added(Object newAccumulator) {
        return new WindowContents(newAccumulator, elements + 1, sinceFire + 1);
    }

    static TypeSerializer<WindowContents> serializer(TypeSerializer<Object> accumulatorType) {
        return new TypeSerializer<>() {
            @Override
            public void write(WindowContents value, DataWriter out) {
                out.writeBoolean(value.accumulator != null);
                if (value.accumulator != null) {
                    accumulatorType.write(value.accumulator, out);
                }
                out.writeVarLong(value.elements);
                out.writeVarLong(value.sinceFire);
            }

            @Override
            public WindowContents read(DataReader in) {
                Object accumulator = in.readBoolean() ? accumulatorType.read(in) : null;
                return new WindowContents(accumulator, in.readVarLong(), in.readVarLong());
            }

            @Override
            public String description() {
                return "windowContents(" + accumulatorType.description() + ")";
            }
        };
    }

    /** A record a window keeps: the window (its state window, when merging) and its index there. */
    record Element<W>(W window, long index) {
        // Written out, as TimeWindow's: these are map-state keys.
        @Override
        public boolean equals(Object other) {
            return other instanceof Element<?> element && index == element.index && window.equals(element.window);
        }

        @Override
        public int hashCode() {
            return 31 * window.hashCode() + Long.hashCode(index);
        }

        static <W> TypeSerializer<Element<W>> serializer(TypeSerializer<W> windowType) {
            return new TypeSerializer<>() {
                @Override
                public void write(Element<W> value, DataWriter out) {
                    windowType.write(value.window, out);
                    out.writeLong(value.index);
                }

                @Override
                public Element<W> read(DataReader in) {
                    return new Element<>(windowType.read(in), in.readLong());
                }

                @Override
                public String description() {
                    return "windowElement(" + windowType.description() + ")";
                }
            };
        }
    }
}
