package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.mailbox.Mailbox;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The slots of the registered TaskManagers: how many each has, which are in use and by how many
 * tasks (see {@link SlotPool} for shared slots), and which to offer next. A task's place counts
 * as free here as soon as this JobManager frees it (it asked for the task's cancellation, or the
 * task ended), not once the TaskManager confirms it. A TaskManager whose slots are held back (it
 * is being probed, see {@link TaskManagerProbes}) offers no new slot; tasks may still join a
 * shared slot there, where the rest of their slot runs.
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
        /** Slots taken by a task of their own. */
        int unshared;
        /** Named slots in use: how many tasks are in each. */
        final Map<String, Integer> shared = new HashMap<>();

        Slots(String tmId, String address, int slots) {
            this.tmId = tmId;
            this.address = address;
            this.slots = slots;
        }

        int used() {
            return unshared + shared.size();
        }

        int free() {
            return slots - used();
        }
    }

    private final Mailbox mainThread;
    private final Predicate<String> heldBack;
    private final Map<String, Slots> taskManagers = new LinkedHashMap<>();
    /** The TaskManager of every named slot in use. */
    private final Map<String, Slots> named = new HashMap<>();
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

    /**
     * A TaskManager registered with {@code slots}, and with tasks it kept running: each holds its
     * place in the slot it names ({@link SlotPool#UNSHARED}: one of its own).
     */
    void add(String tmId, String address, int slots, List<String> keptTasksSlots) {
        remove(tmId);
        Slots tm = new Slots(tmId, address, slots);
        taskManagers.put(tmId, tm);
        for (String slot : keptTasksSlots) {
            take(tm, slot);
        }
    }

    /** The TaskManager's registration ended: its slots are gone. */
    void remove(String tmId) {
        Slots tm = taskManagers.remove(tmId);
        if (tm != null) {
            // Only where the name points here: kept tasks of one slot may be on two TaskManagers (an
            // old attempt still being cancelled on one), and the other one still holds it.
            tm.shared.keySet().forEach(slot -> leaves(slot, tm));
        }
    }

    /** Forgets every TaskManager without telling anyone: the leadership ends. */
    void clear() {
        taskManagers.clear();
        named.clear();
    }

    /** Tells the slot listeners, now, that slots may be available. */
    void slotsAvailable() {
        slotListeners.forEach(Runnable::run);
    }

    /** Slots of the TaskManager not in use, held back or not; 0 for one that is not registered. */
    int freeSlotsOn(String tmId) {
        Slots tm = taskManagers.get(tmId);
        return tm == null ? 0 : Math.max(0, tm.free());
    }

    /**
     * Where the named slot is, if it is in use; else a slot of the TaskManager with the most free
     * slots, so tasks spread over the cluster, never one that is being probed.
     */
    @Override
    public SlotOffer allocate(String slot) {
        Slots where = slot.isEmpty() ? null : named.get(slot);
        if (where == null) {
            for (Slots tm : taskManagers.values()) {
                if (tm.free() > 0 && !heldBack.test(tm.tmId) && (where == null || tm.free() > where.free())) {
                    where = tm;
                }
            }
        }
        if (where == null) {
            return null;
        }
        take(where, slot);
        return new SlotOffer(where.tmId, where.address);
    }

    private void take(Slots tm, String slot) {
        if (slot.isEmpty()) {
            tm.unshared++;
        } else if (tm.shared.merge(slot, 1, Integer::sum) == 1) {
            named.putIfAbsent(slot, tm);
        }
    }

    /** The named slot is no longer on {@code tm}: the name points to another TaskManager that holds it, if any. */
    private void leaves(String slot, Slots tm) {
        if (named.get(slot) != tm) {
            return;
        }
        named.remove(slot);
        for (Slots other : taskManagers.values()) {
            if (other != tm && other.shared.containsKey(slot)) {
                named.put(slot, other);
                return;
            }
        }
    }

    @Override
    public boolean isAllocated(String slot) {
        return named.containsKey(slot);
    }

    /** Free slots, without those of TaskManagers being probed. */
    @Override
    public int freeSlots() {
        int free = 0;
        for (Slots tm : taskManagers.values()) {
            if (!heldBack.test(tm.tmId)) {
                free += Math.max(0, tm.free());
            }
        }
        return free;
    }

    @Override
    public void free(String tmId, String slot) {
        Slots tm = taskManagers.get(tmId);
        if (tm == null) {
            return;
        }
        if (slot.isEmpty()) {
            if (tm.unshared == 0) {
                return;
            }
            tm.unshared--;
        } else {
            Integer tasks = tm.shared.get(slot);
            if (tasks == null) {
                return;
            }
            if (tasks > 1) {
                tm.shared.put(slot, tasks - 1);
                return;  // others still run in it
            }
            tm.shared.remove(slot);
            leaves(slot, tm);
        }
        // Other jobs may be waiting for this slot; they schedule after the current event.
        mainThread.execute(this::slotsAvailable);
    }

    @Override
    public Collection<String> taskManagers() {
        return List.copyOf(taskManagers.keySet());
    }
}
