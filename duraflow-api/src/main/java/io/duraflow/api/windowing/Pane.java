package io.duraflow.api.windowing;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;

/**
 * One of a key's open windows, as a window operator keeps them: the window, the window its records
 * are kept under (itself, unless it grew by merges: then the first window of the merge, so a record
 * that extends a session moves nothing), and its contents (null when it has none: a merging window
 * purged by its trigger stays until its cleanup time, to merge with what comes).
 */
record Pane<W>(W window, W stateWindow, WindowContents contents) {
    Pane<W> with(WindowContents newContents) {
        return new Pane<>(window, stateWindow, newContents);
    }

    /** Writes the state window only when it differs from the window: it never does without merging. */
    static <W> TypeSerializer<Pane<W>> serializer(TypeSerializer<W> windowType,
            TypeSerializer<WindowContents> contentsType) {
        return new TypeSerializer<>() {
            @Override
            public void write(Pane<W> value, DataWriter out) {
                windowType.write(value.window, out);
                boolean moved = !value.stateWindow.equals(value.window);
                boolean hasContents = value.contents != null;
                out.writeByte((moved ? 1 : 0) | (hasContents ? 2 : 0));
                if (moved) {
                    windowType.write(value.stateWindow, out);
                }
                if (hasContents) {
                    contentsType.write(value.contents, out);
                }
            }

            @Override
            public Pane<W> read(DataReader in) {
                W window = windowType.read(in);
                int flags = in.readByte();
                if ((flags & ~3) != 0) {
                    throw new CorruptDataException("a window pane with unknown flags " + flags
                            + ": the state was written by a newer version of Duraflow, or is corrupt");
                }
                W stateWindow = (flags & 1) != 0 ? windowType.read(in) : window;
                WindowContents contents = (flags & 2) != 0 ? contentsType.read(in) : null;
                return new Pane<>(window, stateWindow, contents);
            }

            @Override
            public String description() {
                return "windowPane(" + windowType.description() + "," + contentsType.description() + ")";
            }
        };
    }
}
