package io.duraflow.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What happened in one run, one line per event with its virtual time: faults, leaderships,
 * deployments, task ends, checkpoints, job ends. Two runs of one seed must produce the same trace;
 * nothing random or wall-clock may go into a line.
 */
final class Trace {
    private final List<String> lines = new ArrayList<>();
    private LongSupplier clock = () -> 0;

    void clock(LongSupplier clock) {
        this.clock = clock;
    }

    void add(String line) {
        lines.add(clock.getAsLong() + " " + line);
        SimLog.LOG.info("{}", line);
    }

    List<String> lines() {
        return lines;
    }

    /** The last {@code count} lines, for a failure message. */
    String tail(int count) {
        return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
    }
}
