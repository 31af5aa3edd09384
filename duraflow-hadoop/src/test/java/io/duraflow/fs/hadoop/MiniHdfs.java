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
        return new MiniDFSCluster.Builder(configuration).numDataNodes(1).format(true).build();
    }
}
