package io.duraflow.fs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystemContractTest;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The file-system contract on a real HDFS: a NameNode and a DataNode started in this JVM
 * ({@code hadoop-client-minicluster}), on loopback, once for all tests of the class.
 */
class HadoopFileSystemTest extends FileSystemContractTest {
    private static final AtomicInteger DIRECTORIES = new AtomicInteger();
    private static Path baseDirectory;
    private static MiniDFSCluster cluster;
    private static HadoopFileSystem hdfs;

    @BeforeAll
    static void startHdfs() throws IOException {
        baseDirectory = Files.createTempDirectory("duraflow-minidfs");
        cluster = MiniHdfs.start(baseDirectory);
        hdfs = new HadoopFileSystem(URI.create("hdfs://127.0.0.1:" + cluster.getNameNodePort() + "/"),
                cluster.getConfiguration(0));
    }

    @AfterAll
    static void stopHdfs() throws IOException {
        if (hdfs != null) {
            hdfs.close();
        }
        if (cluster != null) {
            cluster.shutdown(true);
        }
    }

    @Override
    protected FileSystem createFileSystem() {
        return hdfs;
    }

    @Override
    protected FsPath createEmptyDirectory() throws IOException {
        FsPath directory = FsPath.parse("hdfs://127.0.0.1:" + cluster.getNameNodePort() + "/test-"
                + DIRECTORIES.incrementAndGet());
        hdfs.mkdirs(directory);
        return directory;
    }

    @Test
    void hdfsPathsFindTheHadoopFileSystemThroughTheServiceLoader() throws IOException {
        FsPath path = FsPath.parse("hdfs://127.0.0.1:" + cluster.getNameNodePort() + "/found/by/scheme");
        FileSystem found = FileSystems.get(path);

        assertThat(found).isInstanceOf(HadoopFileSystem.class);
        assertThat(FileSystems.schemes()).contains("hdfs", "file");
        found.writeFile(path, new byte[] {1, 2, 3}, io.duraflow.fs.WriteMode.EXCLUSIVE);
        assertThat(hdfs.readFile(path)).containsExactly(1, 2, 3);
    }

    @Test
    void aConfigurationDirectoryThatIsNotOneIsAOneLineErrorSayingWhatToDo() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HadoopFileSystemFactory.configuration(
                baseDirectory.resolve("no-such-dir").toString()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("HADOOP_CONF_DIR")
                .hasMessageContaining("core-site.xml");
    }

    @Test
    void withoutAConfigurationDirectoryHadoopsDefaultsAreRead() throws IOException {
        Configuration configuration = HadoopFileSystemFactory.configuration(null);
        assertThat(configuration.get("fs.defaultFS")).as("Hadoop's defaults are read").isEqualTo("file:///");
    }
}
