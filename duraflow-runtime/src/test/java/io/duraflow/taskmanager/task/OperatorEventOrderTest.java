package io.duraflow.taskmanager.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.AddSplits;
import io.duraflow.rpc.proto.NoMoreSplits;
import io.duraflow.rpc.proto.OperatorEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OperatorEventOrderTest {
    private final List<OperatorEvent.EventCase> applied = new ArrayList<>();
    private final OperatorEventOrder order = new OperatorEventOrder(event -> applied.add(event.getEventCase()));

    private static OperatorEvent splits() {
        return OperatorEvent.newBuilder().setAddSplits(AddSplits.getDefaultInstance()).build();
    }

    private static OperatorEvent noMoreSplits() {
        return OperatorEvent.newBuilder().setNoMoreSplits(NoMoreSplits.getDefaultInstance()).build();
    }

    @Test
    void noMoreSplitsThatOvertookTheSplitsWaitsForThem() {
        order.accept(2, noMoreSplits());
        assertThat(applied).isEmpty();
        assertThat(order.waiting()).isEqualTo(1);

        order.accept(1, splits());

        assertThat(applied).containsExactly(OperatorEvent.EventCase.ADD_SPLITS, OperatorEvent.EventCase.NO_MORE_SPLITS);
        assertThat(order.waiting()).isZero();
    }

    @Test
    void eventsInOrderApplyAtOnceAndDuplicatesAreDropped() {
        order.accept(1, splits());
        order.accept(2, splits());
        order.accept(2, splits());
        order.accept(1, splits());
        order.accept(3, noMoreSplits());

        assertThat(applied).containsExactly(OperatorEvent.EventCase.ADD_SPLITS, OperatorEvent.EventCase.ADD_SPLITS,
                OperatorEvent.EventCase.NO_MORE_SPLITS);
    }

    @Test
    void unnumberedEventsApplyAtOnce() {
        order.accept(2, splits());
        order.accept(0, noMoreSplits());

        assertThat(applied).containsExactly(OperatorEvent.EventCase.NO_MORE_SPLITS);
    }
}
