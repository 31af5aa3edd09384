package io.duraflow.api.dag;

import io.duraflow.api.types.TypeSerializer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The logical plan: operator nodes in build order. Compiled into a {@code io.duraflow.plan.JobGraph}. */
public final class Plan {
    private final List<PlanNode> nodes = new ArrayList<>();
    private String jobName;

    public Plan(String jobName) {
        this.jobName = jobName;
    }

    public String jobName() {
        return jobName;
    }

    public void jobName(String name) {
        this.jobName = name;
    }

    public PlanNode add(String name, Operation operation, List<PlanNode> inputs, TypeSerializer<?> outputType) {
        for (PlanNode input : inputs) {
            if (input.id() >= nodes.size() || nodes.get(input.id()) != input) {
                throw new IllegalArgumentException("operator " + input + " belongs to another job plan");
            }
        }
        PlanNode node = new PlanNode(nodes.size(), name, operation, inputs, outputType);
        nodes.add(node);
        return node;
    }

    public void rename(PlanNode node, String name) {
        node.rename(name);
    }

    public void setUid(PlanNode node, String uid) {
        for (PlanNode other : nodes) {
            if (other != node && uid.equals(other.uid())) {
                throw new IllegalArgumentException("uid '" + uid + "' is used by operators '" + other.name() + "' and '"
                        + node.name() + "': give each operator its own");
            }
        }
        node.uid(uid);
    }

    public void setParallelism(PlanNode node, int parallelism) {
        node.parallelism(parallelism);
    }

    public void setSlotSharingGroup(PlanNode node, String group) {
        node.slotSharingGroup(group);
    }

    public List<PlanNode> nodes() {
        return Collections.unmodifiableList(nodes);
    }
}
