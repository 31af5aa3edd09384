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
 * Slots of a few fake TaskManagers. Like the ResourceManager it offers a slot on the
 * TaskManager with the most free slots (the first registered wins a tie), unless a test pins
 * the next allocations with {@link #placeNextOn}. Freeing a slot of a TaskManager that is gone
 * is ignored, as in the ResourceManager; freeing a slot that is not in use is recorded in
 * {@link #invalidFrees()} so tests can catch double frees.
 */
public final class FakeSlotPool implements SlotPool {
    private static final class TaskManager {
        final int slots;
        int used;

        TaskManager(int slots) {
            this.slots = slots;
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
            free += tm.slots - tm.used;
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
    public SlotOffer allocate() {
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
        taskManagers.get(chosen).used++;
        allocations++;
        return new SlotOffer(chosen, addressOf(chosen));
    }

    private static int free(TaskManager tm) {
        return tm.slots - tm.used;
    }

    @Override
    public void free(String tmId) {
        TaskManager tm = taskManagers.get(tmId);
        if (tm == null) {
            return;
        }
        if (tm.used == 0) {
            invalidFrees.add(tmId);
            return;
        }
        tm.used--;
    }

    @Override
    public Collection<String> taskManagers() {
        return List.copyOf(taskManagers.keySet());
    }

    public int used(String tmId) {
        TaskManager tm = taskManagers.get(tmId);
        return tm == null ? 0 : tm.used;
    }

    public int usedTotal() {
        return taskManagers.values().stream().mapToInt(tm -> tm.used).sum();
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
