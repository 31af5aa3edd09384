package io.duraflow.fs.hadoop;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/** Starts an in-process HDFS for tests: one NameNode and one DataNode, on loopback only, under a directory. */
public final class MiniHdfs {
    private MiniHdfs() {
    }

    public static MiniDFSCluster start(Path baseDirectory) throws IOException {
        Configuration configuration = new Configuration();
        configuration.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDirectory.toString());
        configuration.set("dfs.namenode.rpc-address", "127.0.0.1:0");
        configuration.set("dfs.namenode.http-address", "127.0.0.1:0");
        configuration.set("dfs.datanode.address", "127.0.0.1:0");
        configuration.set("dfs.datanode.http.address", "127.0.0.1:0");
        configuration.set("dfs.datanode.ipc.address", "127.0.0.1:0");
        // One DataNode: blocks cannot be replicated elsewhere, so do not wait for that.
        configuration.setInt("dfs.replication", 1);
        configuration.setBoolean("dfs.permissions.enabled", false);
        // Closing a file asks the NameNode to complete it, which it refuses until the DataNode
        // reported the last block; the client then retries after this delay, doubled each time
        // (default 400 ms). The report usually follows within milliseconds on loopback, so the
        // default cost about 0.4 s per file written (34 s of the class's 53 s).
        configuration.setInt("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", 10);
        return new MiniDFSCluster.Builder(configuration).numDataNodes(1).format(true).build();
    }
}
