package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.resourcemanager.SlotPool;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Slots of a few fake TaskManagers. Like the ResourceManager it offers a named slot where it is
 * in use already, else a slot on the TaskManager with the most free slots (the first registered
 * wins a tie), unless a test pins the next allocations with {@link #placeNextOn}. Freeing a slot of a TaskManager that is gone
 * is ignored, as in the ResourceManager; freeing a slot that is not in use is recorded in
 * {@link #invalidFrees()} so tests can catch double frees.
 */
public final class FakeSlotPool implements SlotPool {
    private static final class TaskManager {
        final int slots;
        /** Slots of a task of their own. */
        int unshared;
        /** Named slots in use, with how many tasks are in each. */
        final Map<String, Integer> shared = new LinkedHashMap<>();

        TaskManager(int slots) {
            this.slots = slots;
        }

        int used() {
            return unshared + shared.size();
        }
    }

    private final Map<String, TaskManager> taskManagers = new LinkedHashMap<>();
    private final Deque<String> placements = new ArrayDeque<>();
    private final List<String> invalidFrees = new ArrayList<>();
    private int allocations;

    /** TaskManagers tm-1 .. tm-N with the same number of slots each. */
    public static FakeSlotPool of(int taskManagerCount, int slotsEach) {
        FakeSlotPool pool = new FakeSlotPool();
        for (int i = 1; i <= taskManagerCount; i++) {
            pool.addTaskManager("tm-" + i, slotsEach);
        }
        return pool;
    }

    public void addTaskManager(String tmId, int slots) {
        if (taskManagers.putIfAbsent(tmId, new TaskManager(slots)) != null) {
            throw new IllegalArgumentException(tmId + " is already registered");
        }
    }

    /** The TaskManager is gone, and with it the slots in use there. */
    public void removeTaskManager(String tmId) {
        if (taskManagers.remove(tmId) == null) {
            throw new IllegalArgumentException(tmId + " is not registered");
        }
    }

    @Override
    public int freeSlots() {
        int free = 0;
        for (TaskManager tm : taskManagers.values()) {
            free += tm.slots - tm.used();
        }
        return free;
    }

    /** The next allocations go to these TaskManagers, in order (if they have a free slot). */
    public void placeNextOn(String... tmIds) {
        placements.addAll(List.of(tmIds));
    }

    public static String addressOf(String tmId) {
        return tmId + ".test:6121";
    }

    @Override
    public SlotOffer allocate(String slot) {
        for (Map.Entry<String, TaskManager> entry : taskManagers.entrySet()) {
            if (!slot.isEmpty() && entry.getValue().shared.containsKey(slot)) {
                entry.getValue().shared.merge(slot, 1, Integer::sum);
                allocations++;
                return new SlotOffer(entry.getKey(), addressOf(entry.getKey()));
            }
        }
        String chosen = null;
        String pinned = placements.poll();
        if (pinned != null && taskManagers.containsKey(pinned) && free(taskManagers.get(pinned)) > 0) {
            chosen = pinned;
        } else {
            int mostFree = 0;
            for (Map.Entry<String, TaskManager> entry : taskManagers.entrySet()) {
                if (free(entry.getValue()) > mostFree) {
                    mostFree = free(entry.getValue());
                    chosen = entry.getKey();
                }
            }
        }
        if (chosen == null) {
            return null;
        }
        if (slot.isEmpty()) {
            taskManagers.get(chosen).unshared++;
        } else {
            taskManagers.get(chosen).shared.put(slot, 1);
        }
        allocations++;
        return new SlotOffer(chosen, addressOf(chosen));
    }

    private static int free(TaskManager tm) {
        return tm.slots - tm.used();
    }

    @Override
    public boolean isAllocated(String slot) {
        return taskManagers.values().stream().anyMatch(tm -> tm.shared.containsKey(slot));
    }

    @Override
    public void free(String tmId, String slot) {
        TaskManager tm = taskManagers.get(tmId);
        if (tm == null) {
            return;
        }
        if (slot.isEmpty()) {
            if (tm.unshared == 0) {
                invalidFrees.add(tmId);
                return;
            }
            tm.unshared--;
            return;
        }
        Integer tasks = tm.shared.get(slot);
        if (tasks == null) {
            invalidFrees.add(tmId);
        } else if (tasks == 1) {
            tm.shared.remove(slot);
        } else {
            tm.shared.put(slot, tasks - 1);
        }
    }

    @Override
    public Collection<String> taskManagers() {
        return List.copyOf(taskManagers.keySet());
    }

    public int used(String tmId) {
        TaskManager tm = taskManagers.get(tmId);
        return tm == null ? 0 : tm.used();
    }

    public int usedTotal() {
        return taskManagers.values().stream().mapToInt(TaskManager::used).sum();
    }

    /** Slots handed out so far, freed or not. */
    public int allocations() {
        return allocations;
    }

    /** TaskManagers on which a slot was freed while none was in use, one entry per such call. */
    public List<String> invalidFrees() {
        return List.copyOf(invalidFrees);
    }
}
