package io.duraflow.plan;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.source.Boundedness;
import java.util.List;

/**
 * A chain of operators run together in one task per parallel instance.
 *
 * @param id          vertex id, in topological order
 * @param name        "source -> map -> ..." as shown to users
 * @param head        the node that starts the chain: a source, or the node reading the inputs
 * @param nodes       every node of the chain, in build order
 * @param parallelism fixed parallelism, or -1 when the adaptive scheduler decides it
 * @param inputs      the edges this vertex reads, by edge id
 * @param outputs     the edges this vertex writes, by edge id
 * @param boundedness a source vertex's: its source's; any other: unbounded as soon as one of
 *                    its inputs is, so the last vertex says whether the job ever ends
 * @param slotSharingGroup the group whose vertices share slots: in a streaming job one slot runs
 *                    one subtask of each vertex of the group (see {@code Flow#slotSharingGroup})
 */
public record JobVertex(int id, String name, PlanNode head, List<PlanNode> nodes, int parallelism,
        List<Integer> inputs, List<Integer> outputs, Boundedness boundedness, String slotSharingGroup) {

    public boolean isSource() {
        return head.operation() instanceof Operation.SourceOp;
    }

    public boolean parallelismDecidedAtRuntime() {
        return parallelism < 0;
    }
}
