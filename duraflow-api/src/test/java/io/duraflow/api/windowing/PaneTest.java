package io.duraflow.api.windowing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The window operator's per-key state value: a list of panes, as it lands in checkpoints. */
class PaneTest {
    @SuppressWarnings("unchecked")
    private static final TypeSerializer<List<Pane<TimeWindow>>> PANES = Types.list(Pane.serializer(
            TimeWindow.SERIALIZER, WindowContents.serializer((TypeSerializer<Object>) (TypeSerializer<?>) Types.LONG)));

    private static byte[] write(List<Pane<TimeWindow>> panes) {
        DataWriter out = new DataWriter();
        PANES.write(panes, out);
        return out.toByteArray();
    }

    @Test
    void panesOfEveryShapeReadBackAsWritten() {
        TimeWindow first = new TimeWindow(0, 10);
        List<Pane<TimeWindow>> panes = List.of(
                new Pane<>(first, first, new WindowContents(3L, 3, 1)),
                new Pane<>(new TimeWindow(5, 30), new TimeWindow(5, 12), new WindowContents(null, 7, 0)),
                new Pane<>(new TimeWindow(40, 50), new TimeWindow(40, 50), null));

        assertThat(PANES.read(new DataReader(write(panes)))).isEqualTo(panes);
    }

    @Test
    void aPaneWithUnknownFlagsIsCorruptDataNotAGuess() {
        TimeWindow window = new TimeWindow(0, 10);
        byte[] bytes = write(List.of(new Pane<>(window, window, null)));
        bytes[bytes.length - 1] = 4; // the flags byte: a bit no version writes

        assertThatThrownBy(() -> PANES.read(new DataReader(bytes))).isInstanceOf(CorruptDataException.class)
                .hasMessageContaining("unknown flags 4");
    }
}
