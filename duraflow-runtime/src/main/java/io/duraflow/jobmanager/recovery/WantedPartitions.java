package io.duraflow.jobmanager.recovery;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.plan.JobGraph;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which finished partitions a recovering batch job waits for before it plans: those the
 * {@link RecoveryPlanner} would keep if every partition ever recorded were still there, and that
 * some consumer still has to read. A pure function of the job graph and its recorded events.
 */
public final class WantedPartitions {
    private WantedPartitions() {}

    /**
     * The partitions worth waiting for: if every partition ever recorded were still there, the
     * recovered job would keep these executions, and some consumer of each still has to read it.
     */
    public static Set<String> of(JobGraph graph, List<JobEvent> events) {
        Map<String, String> everything = new HashMap<>();
        for (JobEvent event : events) {
            if (event.hasExecutionFinished()) {
                for (var partition : event.getExecutionFinished().getPartitionsList()) {
                    everything.put(partition.getPartitionId(), event.getExecutionFinished().getTmId());
                }
            }
        }
        RecoveryPlan optimistic = RecoveryPlanner.plan(graph, events, everything);
        Set<Integer> verticesWithWork = new HashSet<>();
        for (var vertex : graph.vertices()) {
            var plan = optimistic.vertices().get(vertex.id());
            int parallelism = vertex.parallelism() > 0 ? vertex.parallelism() : plan == null ? -1 : plan.parallelism();
            int kept = 0;
            for (var key : optimistic.restored().keySet()) {
                if (key.vertex() == vertex.id()) {
                    kept++;
                }
            }
            if (parallelism < 0 || kept < parallelism) {
                verticesWithWork.add(vertex.id());
            }
        }
        Set<String> wanted = new HashSet<>();
        for (var restored : optimistic.restored().values()) {
            for (var partition : restored.partitions()) {
                int consumer = graph.edge(partition.getEdgeId()).consumer();
                if (verticesWithWork.contains(consumer)) {
                    wanted.add(partition.getPartitionId());
                }
            }
        }
        return wanted;
    }

}
