package io.duraflow.mailbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The test clock the scheduler tests rely on. */
class ManualMailboxTest {

    @Test
    void actionsRunAtTheirDueTimeInOrderAndOnlyWhenTheClockIsMoved() {
        ManualMailbox scheduler = new ManualMailbox();
        List<String> ran = new ArrayList<>();
        scheduler.schedule(() -> ran.add("b@20 at " + scheduler.now()), 20);
        scheduler.schedule(() -> ran.add("a@10 at " + scheduler.now()), 10);
        scheduler.schedule(() -> ran.add("c@20 at " + scheduler.now()), 20);
        scheduler.execute(() -> ran.add("now at " + scheduler.now()));
        assertThat(ran).isEmpty();

        assertThat(scheduler.runDue()).isEqualTo(1);
        scheduler.advance(9);
        assertThat(ran).containsExactly("now at 0");

        scheduler.advance(11);
        assertThat(ran).containsExactly("now at 0", "a@10 at 10", "b@20 at 20", "c@20 at 20");
        assertThat(scheduler.now()).isEqualTo(20);
        assertThat(scheduler.pending()).isZero();
    }

    @Test
    void calledOffActionsDoNotRunAndActionsMayScheduleMore() {
        ManualMailbox scheduler = new ManualMailbox();
        List<Long> ran = new ArrayList<>();
        Mailbox.Cancellable off = scheduler.schedule(() -> ran.add(-1L), 5);
        scheduler.schedule(() -> scheduler.schedule(() -> ran.add(scheduler.now()), 5), 10);
        off.cancel();
        assertThat(scheduler.nextDueMs()).hasValue(10);

        scheduler.advance(100);

        assertThat(ran).containsExactly(15L);
        assertThat(scheduler.now()).isEqualTo(100);
    }
}
