package io.duraflow.simulation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The simulation's own log; the test logback configuration sends it to the test's output file. */
final class SimLog {
    static final Logger LOG = LoggerFactory.getLogger("io.duraflow.simulation");

    private SimLog() {}
}
