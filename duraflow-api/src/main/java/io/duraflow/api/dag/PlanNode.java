package io.duraflow.api.dag;

import io.duraflow.api.types.TypeSerializer;
import java.util.List;

/**
 * One logical operator of a job plan, as the fluent API built it. Nodes are numbered in build
 * order, which every process reproduces, so a node id means the same thing everywhere.
 */
public final class PlanNode {
    private final int id;
    private String name;
    private final Operation operation;
    private final List<PlanNode> inputs;
    private final TypeSerializer<?> outputType;
    private int parallelism = -1;
    private String uid;
    private String slotSharingGroup;

    PlanNode(int id, String name, Operation operation, List<PlanNode> inputs, TypeSerializer<?> outputType) {
        this.id = id;
        this.name = name;
        this.operation = operation;
        this.inputs = List.copyOf(inputs);
        this.outputType = outputType;
    }

    public int id() {
        return id;
    }

    public String name() {
        return name;
    }

    void rename(String newName) {
        if (newName == null || newName.isBlank()) {
            throw new IllegalArgumentException("an operator name must not be blank");
        }
        this.name = newName;
    }

    public Operation operation() {
        return operation;
    }

    public List<PlanNode> inputs() {
        return inputs;
    }

    public TypeSerializer<?> outputType() {
        return outputType;
    }

    /** The stable id the user gave, or {@code null}; see {@code io.duraflow.plan.JobGraph#uid}. */
    public String uid() {
        return uid;
    }

    void uid(String value) {
        if (value == null || value.isBlank() || value.length() > 128 || !value.chars().allMatch(c -> c > 0x20 && c != 0x7f)) {
            throw new IllegalArgumentException("an operator uid must be 1 to 128 visible characters without spaces, got '"
                    + value + "'");
        }
        this.uid = value;
    }

    /** The parallelism the user asked for, or -1 when the engine decides. */
    public int parallelism() {
        return parallelism;
    }

    void parallelism(int value) {
        if (value < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, got " + value);
        }
        this.parallelism = value;
    }

    /** The slot sharing group the user put this operator in, or {@code null} (inherited from its inputs). */
    public String slotSharingGroup() {
        return slotSharingGroup;
    }

    void slotSharingGroup(String group) {
        if (group == null || group.isBlank() || group.length() > 64 || !group.chars().allMatch(c -> c > 0x20 && c != 0x7f)) {
            throw new IllegalArgumentException("a slot sharing group must be 1 to 64 visible characters without spaces,"
                    + " got '" + group + "'");
        }
        this.slotSharingGroup = group;
    }

    @Override
    public String toString() {
        return name + "#" + id;
    }
}
