package io.duraflow.fs.hadoop;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystemFactory;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;

/**
 * Serves {@code hdfs://} paths with a {@link HadoopFileSystem}; found by {@link
 * io.duraflow.fs.FileSystems} through {@code META-INF/services}.
 *
 * <p>The Hadoop configuration is Hadoop's defaults, then {@code core-site.xml} and {@code
 * hdfs-site.xml} from the class path, then those two files in the directory {@code
 * HADOOP_CONF_DIR} names (if it is set), as Hadoop's own tools read it: a NameNode HA name service
 * ({@code hdfs://mycluster/...}) works when that configuration describes it.
 */
public final class HadoopFileSystemFactory implements FileSystemFactory {
    /** The environment variable naming the directory of Hadoop's configuration files. */
    public static final String CONF_DIR_VARIABLE = "HADOOP_CONF_DIR";

    @Override
    public String scheme() {
        return "hdfs";
    }

    @Override
    public FileSystem create(URI root) throws IOException {
        return new HadoopFileSystem(root, configuration(System.getenv(CONF_DIR_VARIABLE)));
    }

    static Configuration configuration(String confDir) throws IOException {
        Configuration configuration = new Configuration();
        if (confDir != null && !confDir.isBlank()) {
            Path directory = Path.of(confDir);
            if (!Files.isDirectory(directory)) {
                throw new IOException(CONF_DIR_VARIABLE + " is " + confDir + ", which is not a directory; point it at"
                        + " the directory holding core-site.xml and hdfs-site.xml, or unset it");
            }
            for (String name : new String[] {"core-site.xml", "hdfs-site.xml"}) {
                Path file = directory.resolve(name);
                if (Files.isRegularFile(file)) {
                    configuration.addResource(new org.apache.hadoop.fs.Path(file.toUri()));
                }
            }
        }
        return configuration;
    }
}
