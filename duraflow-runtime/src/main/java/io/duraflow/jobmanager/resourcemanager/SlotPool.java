package io.duraflow.jobmanager.resourcemanager;

import java.util.Collection;

/**
 * Task slots across TaskManagers, as the job masters see them. A task takes a slot named for what
 * may share it ({@code TaskDeployment.slot}: a streaming job's subtasks of one slot sharing group
 * and index): the first task of a name takes a free slot, the next ones join it on the same
 * TaskManager, and the slot is free again when the last of them left. A task with the
 * {@linkplain #UNSHARED empty name} takes a slot of its own.
 */
public interface SlotPool {
    /** The name of a slot a task shares with no other. */
    String UNSHARED = "";

    /**
     * A place for a task in the slot named {@code slot}: where that slot is already, else a free
     * slot; null when the slot is new and none is free.
     */
    SlotOffer allocate(String slot);

    /** A slot of its own. */
    default SlotOffer allocate() {
        return allocate(UNSHARED);
    }

    /** A task left the slot named {@code slot} on the TaskManager; the slot is free once the last one left. */
    void free(String tmId, String slot);

    /** A task left its own slot. */
    default void free(String tmId) {
        free(tmId, UNSHARED);
    }

    /** Whether a task is in the slot named {@code slot} now (one more joins it without a free slot). */
    boolean isAllocated(String slot);

    /** Slots free now, over all TaskManagers. */
    int freeSlots();

    /** TaskManagers registered now. */
    Collection<String> taskManagers();

    /** A slot on one TaskManager. */
    record SlotOffer(String tmId, String address) {}
}
