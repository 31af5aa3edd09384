package io.duraflow.taskmanager.task;

import java.util.List;

/** Sends every record to several downstreams (a flow used by more than one operator). */
final class FanOut implements Downstream {
    private final Downstream[] targets;

    private FanOut(List<Downstream> targets) {
        this.targets = targets.toArray(new Downstream[0]);
    }

    static Downstream of(List<Downstream> targets) {
        if (targets.size() == 1) {
            return targets.get(0);
        }
        return new FanOut(targets);
    }

    @Override
    public void push(Object record) throws Exception {
        for (Downstream target : targets) {
            target.push(record);
        }
    }

    @Override
    public void processWatermark(long watermark) throws Exception {
        for (Downstream target : targets) {
            target.processWatermark(watermark);
        }
    }
}
