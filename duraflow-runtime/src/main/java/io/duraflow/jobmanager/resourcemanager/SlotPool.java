package io.duraflow.jobmanager.resourcemanager;

import java.util.Collection;

/** Free task slots across TaskManagers, as the job masters see them. */
public interface SlotPool {
    /** A free slot, or null when all are busy. */
    SlotOffer allocate();

    void free(String tmId);

    /** Slots free now, over all TaskManagers. */
    int freeSlots();

    /** TaskManagers registered now. */
    Collection<String> taskManagers();

    /** A slot on one TaskManager. */
    record SlotOffer(String tmId, String address) {}
}
