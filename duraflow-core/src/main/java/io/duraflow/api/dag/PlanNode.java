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

    @Override
    public String toString() {
        return name + "#" + id;
    }
}
