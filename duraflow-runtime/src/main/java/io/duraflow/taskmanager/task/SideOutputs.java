package io.duraflow.taskmanager.task;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where an operator's side outputs go: per tag id, the chained operators that read it (side
 * output nodes, see {@code Operation.SideOutputOp}). Its main output is a separate {@link
 * Downstream}, so a record on the main output never looks a tag up. A tag that no part of the job
 * reads has no downstream, and its records are dropped.
 *
 * <p>The side outputs' downstreams are operators of the chain like any other: they get their
 * lifecycle from the chain, and their watermarks from the operator, through {@link
 * #processWatermark}, after its main output.
 */
public final class SideOutputs {
    /** An operator without side outputs read. */
    public static final SideOutputs NONE = new SideOutputs(Map.of());

    private final Map<String, Downstream> byTagId;
    private final Downstream[] all;

    private SideOutputs(Map<String, Downstream> byTagId) {
        this.byTagId = Map.copyOf(byTagId);
        this.all = byTagId.values().toArray(new Downstream[0]);
    }

    /** The readers of each tag id, in the order the plan lists them. */
    public static SideOutputs of(Map<String, List<Downstream>> readersByTagId) {
        if (readersByTagId.isEmpty()) {
            return NONE;
        }
        Map<String, Downstream> byTagId = new LinkedHashMap<>();
        readersByTagId.forEach((tagId, readers) -> byTagId.put(tagId, FanOut.of(readers)));
        return new SideOutputs(byTagId);
    }

    /** Where records of side output {@code tagId} go, or null when nothing reads it. */
    public Downstream of(String tagId) {
        return byTagId.get(tagId);
    }

    public boolean isEmpty() {
        return all.length == 0;
    }

    /** Event time reached {@code watermark}: every side output's readers hear it. */
    public void processWatermark(long watermark) throws Exception {
        for (Downstream side : all) {
            side.processWatermark(watermark);
        }
    }
}
