package io.duraflow.api;

import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.source.Source;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.Plan;
import io.duraflow.api.dag.PlanNode;
import java.util.List;

/** The entry point of the fluent API: a job's sources, from which flows are built. */
public final class JobBuilder {
    private final Plan plan;

    public JobBuilder(String jobName) {
        this.plan = new Plan(jobName);
    }

    public JobBuilder name(String jobName) {
        plan.jobName(jobName);
        return this;
    }

    public <T> Flow<T> fromSource(String name, Source<T, ?> source) {
        PlanNode node = plan.add(name, new Operation.SourceOp(source), List.of(), source.producedType());
        return new Flow<>(plan, node);
    }

    /**
     * A source whose records get event-time timestamps and watermarks from {@code watermarks}:
     * each split has a generator of its own, and a reader's watermark is the lowest of its splits
     * that are neither idle nor finished.
     */
    @SuppressWarnings("unchecked")
    public <T> Flow<T> fromSource(String name, Source<T, ?> source, WatermarkStrategy<T> watermarks) {
        java.util.Objects.requireNonNull(watermarks, "watermarks");
        PlanNode node = plan.add(name, new Operation.SourceOp(source, (WatermarkStrategy<Object>) watermarks), List.of(),
                source.producedType());
        return new Flow<>(plan, node);
    }

    public Plan plan() {
        return plan;
    }
}
