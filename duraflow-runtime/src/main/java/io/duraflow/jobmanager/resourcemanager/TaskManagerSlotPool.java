package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.mailbox.Mailbox;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The slots of the registered TaskManagers: how many each has, how many are in use, and which to
 * offer next. A slot counts as free here as soon as this JobManager frees it (it asked for its
 * task's cancellation, or the task ended), not once the TaskManager confirms it. A TaskManager
 * whose slots are held back (it is being probed, see {@link TaskManagerProbes}) offers none.
 *
 * <p>Told by the {@link ResourceManager} when a registration begins ({@link #add}) and ends
 * ({@link #remove}); iterates TaskManagers in the order they registered.
 *
 * <p>Main thread only (the JobManager's {@link Mailbox}); no locks. Slot listeners run on the
 * main thread too: after a registration or a kept probe at once, after {@link #free} as a mail of
 * its own.
 */
final class TaskManagerSlotPool implements SlotPool {
    /** The slots of one TaskManager. */
    private static final class Slots {
        final String tmId;
        final String address;
        final int slots;
        int usedSlots;

        Slots(String tmId, String address, int slots, int usedSlots) {
            this.tmId = tmId;
            this.address = address;
            this.slots = slots;
            this.usedSlots = usedSlots;
        }
    }

    private final Mailbox mainThread;
    private final Predicate<String> heldBack;
    private final Map<String, Slots> taskManagers = new LinkedHashMap<>();
    private final List<Runnable> slotListeners = new ArrayList<>();

    /**
     * @param heldBack whether a TaskManager's slots must not be offered now (it is being probed)
     */
    TaskManagerSlotPool(Mailbox mainThread, Predicate<String> heldBack) {
        this.mainThread = mainThread;
        this.heldBack = heldBack;
    }

    /** Called when slots become available (a TaskManager registered, was kept, or a slot was freed). */
    void addSlotListener(Runnable listener) {
        slotListeners.add(listener);
    }

    /** A TaskManager registered with {@code slots}, {@code usedSlots} of them held by tasks it kept. */
    void add(String tmId, String address, int slots, int usedSlots) {
        taskManagers.put(tmId, new Slots(tmId, address, slots, usedSlots));
    }

    /** The TaskManager's registration ended: its slots are gone. */
    void remove(String tmId) {
        taskManagers.remove(tmId);
    }

    /** Forgets every TaskManager without telling anyone: the leadership ends. */
    void clear() {
        taskManagers.clear();
    }

    /** Tells the slot listeners, now, that slots may be available. */
    void slotsAvailable() {
        slotListeners.forEach(Runnable::run);
    }

    /** Slots of the TaskManager not in use, held back or not; 0 for one that is not registered. */
    int freeSlotsOn(String tmId) {
        Slots tm = taskManagers.get(tmId);
        return tm == null ? 0 : tm.slots - tm.usedSlots;
    }

    /**
     * The TaskManager with the most free slots, so tasks spread over the cluster; never one that
     * is being probed.
     */
    @Override
    public SlotOffer allocate() {
        Slots best = null;
        for (Slots tm : taskManagers.values()) {
            if (tm.usedSlots < tm.slots && !heldBack.test(tm.tmId)
                    && (best == null || tm.slots - tm.usedSlots > best.slots - best.usedSlots)) {
                best = tm;
            }
        }
        if (best == null) {
            return null;
        }
        best.usedSlots++;
        return new SlotOffer(best.tmId, best.address);
    }

    /** Free slots, without those of TaskManagers being probed. */
    @Override
    public int freeSlots() {
        int free = 0;
        for (Slots tm : taskManagers.values()) {
            if (!heldBack.test(tm.tmId)) {
                free += Math.max(0, tm.slots - tm.usedSlots);
            }
        }
        return free;
    }

    @Override
    public void free(String tmId) {
        Slots tm = taskManagers.get(tmId);
        if (tm != null && tm.usedSlots > 0) {
            tm.usedSlots--;
            // Other jobs may be waiting for this slot; they schedule after the current event.
            mainThread.execute(this::slotsAvailable);
        }
    }

    @Override
    public Collection<String> taskManagers() {
        return List.copyOf(taskManagers.keySet());
    }
}
