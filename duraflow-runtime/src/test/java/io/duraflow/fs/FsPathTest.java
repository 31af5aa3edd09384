package io.duraflow.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FsPathTest {
    @Test
    void plainPathsAndFileUrisAreTheSameLocalPath() {
        FsPath plain = FsPath.parse("/data/ha");

        assertThat(plain.isLocal()).isTrue();
        assertThat(plain.scheme()).isEqualTo("file");
        assertThat(plain.authority()).isNull();
        assertThat(FsPath.parse("file:/data/ha")).isEqualTo(plain);
        assertThat(FsPath.parse("file:///data/ha")).isEqualTo(plain);
        assertThat(FsPath.parse("file://localhost/data/ha")).isEqualTo(plain);
        assertThat(FsPath.parse("/data//ha/./x/..")).isEqualTo(plain);
        assertThat(FsPath.of(Path.of("/data/ha"))).isEqualTo(plain);
        assertThat(plain.toString()).as("messages show local paths as before").isEqualTo("/data/ha");
        assertThat(plain.toLocalPath()).isEqualTo(Path.of("/data/ha"));
        assertThat(plain.toUri()).isEqualTo(URI.create("file:/data/ha"));
    }

    @Test
    void aRelativePlainPathIsResolvedAgainstTheWorkingDirectory() {
        assertThat(FsPath.parse(".duraflow/ha")).isEqualTo(FsPath.of(Path.of(".duraflow/ha").toAbsolutePath()));
        assertThat(FsPath.parse(".duraflow/ha").path()).startsWith("/").endsWith("/.duraflow/ha");
    }

    @Test
    void otherSchemesKeepTheirAuthorityAndPrintAsUris() {
        FsPath hdfs = FsPath.parse("hdfs://namenode:8020/duraflow/ha/");

        assertThat(hdfs.isLocal()).isFalse();
        assertThat(hdfs.scheme()).isEqualTo("hdfs");
        assertThat(hdfs.authority()).isEqualTo("namenode:8020");
        assertThat(hdfs.path()).isEqualTo("/duraflow/ha");
        assertThat(hdfs.toString()).isEqualTo("hdfs://namenode:8020/duraflow/ha");
        assertThat(FsPath.parse("HDFS://namenode:8020/duraflow/ha")).isEqualTo(hdfs);
        assertThat(hdfs).isNotEqualTo(FsPath.parse("hdfs://other:8020/duraflow/ha"));
        assertThatThrownBy(hdfs::toLocalPath).isInstanceOf(IllegalStateException.class).hasMessageContaining("hdfs://");
        assertThat(FsPath.parse("s3://bucket/checkpoints").resolve("chk-1").toString())
                .isEqualTo("s3://bucket/checkpoints/chk-1");
    }

    @Test
    void resolveParentAndName() {
        FsPath dir = FsPath.parse("hdfs://nn/ha/default");
        FsPath file = dir.resolve("jobs/j1").resolve("events.0");

        assertThat(file.toString()).isEqualTo("hdfs://nn/ha/default/jobs/j1/events.0");
        assertThat(file.name()).isEqualTo("events.0");
        assertThat(file.parent()).isEqualTo(dir.resolve("jobs/j1"));
        assertThat(FsPath.parse("/").parent()).isNull();
        assertThat(FsPath.parse("/").name()).isEmpty();
        assertThat(FsPath.parse("/a").parent()).isEqualTo(FsPath.parse("/"));
        assertThat(FsPath.parse("/").resolve("a")).isEqualTo(FsPath.parse("/a"));
    }

    @Test
    void aChildNeverEscapesItsParent() {
        FsPath dir = FsPath.parse("/ha");

        for (String bad : new String[] {"", "/etc", "..", "a/../../b", "a//b", ".", "a/"}) {
            assertThatThrownBy(() -> dir.resolve(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> FsPath.parse("hdfs://nn/a/../..")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FsPath("file", null, "relative")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FsPath("file", null, "/a/")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void malformedLocationsAreRefusedNamingThem() {
        assertThatThrownBy(() -> FsPath.parse("hdfs://nn/a b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hdfs://nn/a b");
        assertThatThrownBy(() -> FsPath.parse("mailto:someone")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mailto:someone");
        assertThatThrownBy(() -> FsPath.parse("hdfs://nn/a?x=1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FsPath.parse("file://remotehost/a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("remotehost");
        assertThatThrownBy(() -> FsPath.parse(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void namesWithSpacesSurviveTheUriRoundTrip() {
        FsPath local = FsPath.of(Path.of("/tmp/with space/x"));

        assertThat(local.toUri().toString()).isEqualTo("file:/tmp/with%20space/x");
        assertThat(FsPath.of(local.toUri())).isEqualTo(local);
        assertThat(local.toString()).isEqualTo("/tmp/with space/x");
    }
}
