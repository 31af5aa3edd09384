package io.duraflow.api.windowing;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;

/** The one window of {@link GlobalWindows}: every record of a key; it never ends. */
public final class GlobalWindow implements Window {
    public static final GlobalWindow INSTANCE = new GlobalWindow();

    public static final TypeSerializer<GlobalWindow> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void write(GlobalWindow value, DataWriter out) {
            out.writeByte(0);
        }

        @Override
        public GlobalWindow read(DataReader in) {
            in.readByte();
            return INSTANCE;
        }

        @Override
        public String description() {
            return "globalWindow";
        }
    };

    private GlobalWindow() {}

    @Override
    public long maxTimestamp() {
        return Long.MAX_VALUE;
    }

    @Override
    public String toString() {
        return "GlobalWindow";
    }
}
