package io.duraflow.cli;

import io.duraflow.config.Configuration;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.TaskManagerInfo;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "status", description = "Shows the local cluster's processes and TaskManagers.")
final class LocalStatusCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    LocalCommand local;

    @Override
    public Integer call() throws Exception {
        Configuration config = local.root.configuration();
        LocalCluster cluster = local.cluster(config, System.out);
        Map<String, Long> processes = cluster.processes();
        if (processes.isEmpty()) {
            System.out.println("No local cluster in " + cluster.workDir());
            return 1;
        }
        List<Long> alive = cluster.alivePids();
        for (Map.Entry<String, Long> p : processes.entrySet()) {
            System.out.printf("%-16s pid %-8d %-8s log %s%n", p.getKey(), p.getValue(),
                    alive.contains(p.getValue()) ? "running" : "DEAD", cluster.log(p.getKey()));
        }
        if (!alive.isEmpty()) {
            try (ClusterClient client = local.root.client(config)) {
                ClusterOverview overview = client.overview();
                System.out.println("Leading JobManager " + client.address() + ": "
                        + overview.getTaskManagersCount() + " TaskManagers, " + overview.getRunningJobs()
                        + " running jobs");
                for (TaskManagerInfo tm : overview.getTaskManagersList()) {
                    System.out.printf("  %s at %s: %d/%d slots free, heap %d MiB, network memory %d of %d"
                                    + " KiB in use%n", tm.getTmId(), tm.getAddress(), tm.getFreeSlots(),
                            tm.getSlots(), tm.getHeapUsedBytes() >> 20, tm.getNetworkBytesInUse() >> 10,
                            tm.getNetworkBytesTotal() >> 10);
                }
            }
        }
        return alive.size() == processes.size() ? 0 : 1;
    }
}
