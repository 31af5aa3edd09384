package io.duraflow.rest;

import java.io.File;
import org.junit.jupiter.api.Assertions;

/**
 * Debian's headless Chromium and its driver, for the web UI's browser integration tests
 * ({@code -Dchromium.binary}, {@code -Dchromium.driver} point elsewhere). Without them those
 * tests fail rather than skip: a build that cannot run them must not pass as if they had.
 */
final class Chromium {
    static final String BINARY = System.getProperty("chromium.binary", "/usr/bin/chromium");
    static final String DRIVER = System.getProperty("chromium.driver", "/usr/bin/chromedriver");

    private Chromium() {}

    /** Fails the test, in one line that says what to install, unless both are there. */
    static void require() {
        if (!new File(BINARY).canExecute() || !new File(DRIVER).canExecute()) {
            Assertions.fail("no chromium at " + BINARY + " or no chromedriver at " + DRIVER
                    + ": install Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)");
        }
    }
}
