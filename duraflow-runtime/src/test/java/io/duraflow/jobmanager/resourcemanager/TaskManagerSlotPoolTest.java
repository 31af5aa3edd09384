package io.duraflow.jobmanager.resourcemanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.mailbox.ManualMailbox;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The slot pool alone: which slot is offered, what counts as free, and when waiting jobs are told. */
class TaskManagerSlotPoolTest {
    private final ManualMailbox main = new ManualMailbox();
    private final Set<String> probed = new HashSet<>();
    private final TaskManagerSlotPool pool = new TaskManagerSlotPool(main, probed::contains);
    private final AtomicInteger told = new AtomicInteger();

    @BeforeEach
    void listen() {
        pool.addSlotListener(told::incrementAndGet);
    }

    @Test
    void slotsAreOfferedOnTheTaskManagerWithTheMostFreeOnesAndTiesGoToTheEarlierRegistration() {
        pool.add("tm-1", "tm-1.test:6122", 2, List.of());
        pool.add("tm-2", "tm-2.test:6122", 3, List.of());

        assertThat(pool.allocate()).isEqualTo(new SlotPool.SlotOffer("tm-2", "tm-2.test:6122"));
        assertThat(pool.allocate().tmId()).as("2 free each: the earlier one").isEqualTo("tm-1");
        assertThat(pool.allocate().tmId()).isEqualTo("tm-2");
        assertThat(pool.allocate().tmId()).isEqualTo("tm-1");
        assertThat(pool.allocate().tmId()).isEqualTo("tm-2");
        assertThat(pool.allocate()).as("all busy").isNull();
        assertThat(pool.freeSlots()).isZero();
    }

    @Test
    void slotsHeldByKeptTasksAreInUseFromTheStart() {
        pool.add("tm-1", "tm-1.test:6122", 2, List.of("", ""));

        assertThat(pool.freeSlots()).isZero();
        assertThat(pool.freeSlotsOn("tm-1")).isZero();
        assertThat(pool.allocate()).isNull();
    }

    @Test
    void aTaskManagerBeingProbedOffersNoSlotAndCountsNoneAsFree() {
        pool.add("tm-1", "tm-1.test:6122", 2, List.of());
        pool.add("tm-2", "tm-2.test:6122", 1, List.of());
        probed.add("tm-1");

        assertThat(pool.freeSlots()).isEqualTo(1);
        assertThat(pool.freeSlotsOn("tm-1")).as("the overview still shows them").isEqualTo(2);
        assertThat(pool.allocate().tmId()).isEqualTo("tm-2");
        assertThat(pool.allocate()).isNull();

        probed.clear();
        assertThat(pool.allocate().tmId()).isEqualTo("tm-1");
    }

    @Test
    void aFreedSlotIsOfferedAgainAndWaitingJobsAreToldAfterTheCurrentEvent() {
        pool.add("tm-1", "tm-1.test:6122", 1, List.of());
        pool.allocate();

        pool.free("tm-1");
        assertThat(told).as("not while the caller runs").hasValue(0);
        main.runDue();
        assertThat(told).hasValue(1);
        assertThat(pool.freeSlots()).isEqualTo(1);

        pool.free("tm-1");
        pool.free("tm-9");
        main.runDue();
        assertThat(told).as("a slot not in use, or of an unknown TaskManager, frees nothing").hasValue(1);
        assertThat(pool.freeSlots()).isEqualTo(1);
    }

    @Test
    void aRemovedTaskManagerTakesItsSlotsAlong() {
        pool.add("tm-1", "tm-1.test:6122", 2, List.of());
        pool.add("tm-2", "tm-2.test:6122", 2, List.of());
        pool.allocate();

        pool.remove("tm-1");

        assertThat(pool.taskManagers()).containsExactly("tm-2");
        assertThat(pool.freeSlots()).isEqualTo(2);
        assertThat(pool.freeSlotsOn("tm-1")).isZero();
        pool.free("tm-1");
        main.runDue();
        assertThat(told).hasValue(0);

        pool.clear();
        assertThat(pool.taskManagers()).isEmpty();
        assertThat(pool.allocate()).isNull();
    }

    @Test
    void slotsAvailableTellsTheListenersAtOnce() {
        pool.slotsAvailable();
        assertThat(told).hasValue(1);
    }

    @Test
    void tasksOfOneNamedSlotShareItUntilTheLastLeaves() {
        pool.add("tm-1", "tm-1.test:6122", 1, List.of());
        pool.add("tm-2", "tm-2.test:6122", 1, List.of());

        SlotPool.SlotOffer first = pool.allocate("job/default/0");
        assertThat(pool.isAllocated("job/default/0")).isTrue();
        assertThat(pool.allocate("job/default/0")).as("joins the slot").isEqualTo(first);
        assertThat(pool.allocate("job/default/0")).isEqualTo(first);
        assertThat(pool.freeSlots()).as("three tasks, one slot").isEqualTo(1);
        SlotPool.SlotOffer other = pool.allocate("job/default/1");
        assertThat(other.tmId()).isNotEqualTo(first.tmId());
        assertThat(pool.allocate("job/default/2")).as("a new name needs a free slot").isNull();

        pool.free(first.tmId(), "job/default/0");
        pool.free(first.tmId(), "job/default/0");
        main.runDue();
        assertThat(told).as("two of three left: the slot is still in use").hasValue(0);
        assertThat(pool.freeSlots()).isZero();
        pool.free(first.tmId(), "job/default/0");
        main.runDue();
        assertThat(told).hasValue(1);
        assertThat(pool.isAllocated("job/default/0")).isFalse();
        assertThat(pool.freeSlotsOn(first.tmId())).isEqualTo(1);
        pool.free(first.tmId(), "job/default/0");
        assertThat(pool.freeSlots()).as("a name not in use frees nothing").isEqualTo(1);
    }

    @Test
    void keptTasksHoldTheirNamedSlotsUntilFreedAndARemovedTaskManagerTakesItsNamesAlong() {
        pool.add("tm-1", "tm-1.test:6122", 3, List.of("job/default/0", "job/default/0", "", "job/default/1"));

        assertThat(pool.freeSlotsOn("tm-1")).as("two named slots and one of its own").isZero();
        assertThat(pool.allocate("job/default/1")).as("joins a kept slot").isNotNull();
        pool.free("tm-1", "job/default/0");
        pool.free("tm-1", "job/default/0");
        assertThat(pool.freeSlotsOn("tm-1")).isEqualTo(1);

        pool.remove("tm-1");
        assertThat(pool.isAllocated("job/default/1")).isFalse();
        pool.add("tm-1", "tm-1.test:6122", 3, List.of());
        assertThat(pool.freeSlotsOn("tm-1")).isEqualTo(3);
    }

    @Test
    void aSlotNameKeptOnTwoTaskManagersStaysAllocatedWhileEitherHoldsIt() {
        // After a leader change: an old attempt being cancelled on tm-1, the new one on tm-2.
        pool.add("tm-1", "tm-1.test:6122", 1, List.of("job/default/0"));
        pool.add("tm-2", "tm-2.test:6122", 1, List.of("job/default/0"));

        pool.remove("tm-1");
        assertThat(pool.isAllocated("job/default/0")).as("tm-2 still holds it").isTrue();
        assertThat(pool.allocate("job/default/0").tmId()).isEqualTo("tm-2");

        pool.add("tm-3", "tm-3.test:6122", 1, List.of("job/default/1"));
        pool.add("tm-4", "tm-4.test:6122", 1, List.of("job/default/1"));
        pool.free("tm-3", "job/default/1");
        assertThat(pool.isAllocated("job/default/1")).as("tm-4 still holds it").isTrue();
    }
}
