package io.duraflow.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FailpointsTest {
    @Test
    void namesAreCommaSeparated() {
        assertThat(Failpoints.parse("")).isEmpty();
        assertThat(Failpoints.parse("dispatcher.before-cleanup,tm_1.x")).containsExactly("dispatcher.before-cleanup",
                "tm_1.x");
    }

    @Test
    void aRepeatedNameIsAOneLineErrorNamingIt() {
        assertThatThrownBy(() -> Failpoints.parse("a,a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("-Dduraflow.failpoints='a,a' names 'a' twice; give each failpoint once")
                .hasMessageNotContaining("\n");
    }

    @Test
    void anEmptyOrMalformedNameIsAnError() {
        assertThatThrownBy(() -> Failpoints.parse("a,,b")).hasMessageContaining("'a,,b' has an empty name");
        assertThatThrownBy(() -> Failpoints.parse("a,")).hasMessageContaining("'a,' has an empty name");
        assertThatThrownBy(() -> Failpoints.parse("a b")).hasMessageContaining("has the name 'a b'");
    }

    @Test
    void validateReadsTheSystemPropertyAsItIsNow() {
        String before = System.getProperty(Failpoints.PROPERTY);
        try {
            System.setProperty(Failpoints.PROPERTY, "x,x");
            assertThatThrownBy(Failpoints::validate).hasMessageContaining("names 'x' twice");
            System.setProperty(Failpoints.PROPERTY, "x");
            Failpoints.validate();
        } finally {
            if (before == null) {
                System.clearProperty(Failpoints.PROPERTY);
            } else {
                System.setProperty(Failpoints.PROPERTY, before);
            }
        }
    }

    @Test
    void aFailpointIsArmedWhileTheFileNamesIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("failpoints");
        assertThat(Failpoints.armedIn(null, "a")).as("no file configured").isFalse();
        assertThat(Failpoints.armedIn(file, "a")).as("no file yet").isFalse();

        Files.writeString(file, "dispatcher.before-cleanup\n a \n");
        assertThat(Failpoints.armedIn(file, "a")).isTrue();
        assertThat(Failpoints.armedIn(file, "dispatcher.before-cleanup")).isTrue();
        assertThat(Failpoints.armedIn(file, "dispatcher")).as("a whole line, not a prefix").isFalse();

        Files.delete(file);
        assertThat(Failpoints.armedIn(file, "a")).as("disarmed").isFalse();
    }
}
