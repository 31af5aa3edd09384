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
    private final OperatorEventOrder<OperatorEvent> order = new OperatorEventOrder<>(event -> applied.add(event.getEventCase()));

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

    /**
     * A source task's trigger has a place among the events (reserved when the enumerators
     * snapshotted): events sent before it apply first even if they arrive later, events sent after
     * it wait until the trigger is through, whatever order the RPCs arrive in.
     */
    @Test
    void aTriggerAppliesAfterTheEventsBeforeItAndBeforeTheEventsAfterIt() {
        List<String> seen = new ArrayList<>();
        OperatorEventOrder<String> messages = new OperatorEventOrder<>(seen::add);
        messages.accept(3, "split assigned after the snapshot");
        messages.accept(2, "trigger of checkpoint 1");
        assertThat(seen).as("both wait for event 1").isEmpty();

        messages.accept(1, "split assigned before the snapshot");

        assertThat(seen).containsExactly("split assigned before the snapshot", "trigger of checkpoint 1",
                "split assigned after the snapshot");
    }
}
