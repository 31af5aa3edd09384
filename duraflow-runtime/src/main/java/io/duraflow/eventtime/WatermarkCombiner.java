package io.duraflow.eventtime;

import java.util.Arrays;

/**
 * The watermark of several inputs: the lowest watermark among the inputs that are active (not
 * idle, not ended). An ended input holds nothing back; when every input ended the combination is
 * {@link #END_OF_TIME}. An input whose watermark reaches the end of time has ended: nothing comes
 * after it, and as an active input it would carry the combination to the end of time past inputs
 * that are only idle (a reader that has not read its split's first record yet) and will still
 * bring records. When none is active but some are idle, the combination is idle: it keeps
 * its watermark and tells its downstream not to wait for it. The combined watermark never goes
 * back: an input that becomes active again with a lower watermark holds the combination where it
 * is until it catches up.
 *
 * <p>Inputs are numbered from 0 as they are added (splits come and go; channels are fixed).
 * An update costs O(1) unless it moves the last input at the minimum, which costs O(inputs):
 * when every input advances once per period that is O(1) per update on average, so a gate of
 * thousands of channels does not scan them all for each watermark. Single-threaded.
 */
public final class WatermarkCombiner {
    /** Before any watermark. */
    public static final long NO_WATERMARK = Long.MIN_VALUE;
    /** The watermark after the end of input: every event-time timer fires. */
    public static final long END_OF_TIME = Long.MAX_VALUE;

    /** Where changes of the combination go. */
    public interface Output {
        /** The combined watermark rose to {@code watermark}. */
        void watermark(long watermark);

        /** The combination became idle (no active input, not all ended) or active again. */
        void idle(boolean idle);
    }

    private enum Status { ACTIVE, IDLE, ENDED }

    private final Output output;
    private long[] watermarks = new long[4];
    private Status[] statuses = new Status[4];
    private int inputs;
    private int active;
    private int ended;
    /** The lowest watermark among active inputs (END_OF_TIME when none is active). */
    private long min = END_OF_TIME;
    /** How many active inputs are at {@link #min}. */
    private int atMin;
    private long emitted = NO_WATERMARK;
    private boolean idle;

    public WatermarkCombiner(Output output) {
        this.output = output;
    }

    /** {@code count} inputs at once, numbered from the next free number; returns the first. */
    public int addInputs(int count) {
        int first = inputs;
        for (int i = 0; i < count; i++) {
            addInput();
        }
        return first;
    }

    /** A new active input without a watermark yet: it holds the combination until it emits one. */
    public int addInput() {
        if (inputs == watermarks.length) {
            watermarks = Arrays.copyOf(watermarks, inputs * 2);
            statuses = Arrays.copyOf(statuses, inputs * 2);
        }
        int input = inputs++;
        watermarks[input] = NO_WATERMARK;
        statuses[input] = Status.ACTIVE;
        active++;
        joinMin(NO_WATERMARK);
        publish();
        return input;
    }

    public int inputCount() {
        return inputs;
    }

    /**
     * Input {@code input} emitted {@code watermark} (lower than its last: ignored); it is active, or
     * ended if {@code watermark} is the end of time.
     */
    public void update(int input, long watermark) {
        check(input);
        if (statuses[input] == Status.ENDED) {
            return;
        }
        if (watermark == END_OF_TIME) {
            end(input);
            return;
        }
        if (statuses[input] == Status.IDLE) {
            setStatus(input, Status.ACTIVE);
            watermarks[input] = Math.max(watermarks[input], watermark);
            joinMin(watermarks[input]);
        } else if (watermark > watermarks[input]) {
            long before = watermarks[input];
            watermarks[input] = watermark;
            leaveMin(before);
        }
        publish();
    }

    /** Input {@code input} has no records for now: it holds nothing back until it is active again. */
    public void markIdle(int input) {
        check(input);
        if (statuses[input] != Status.ACTIVE) {
            return;
        }
        setStatus(input, Status.IDLE);
        leaveMin(watermarks[input]);
        publish();
    }

    /** Input {@code input} has records again, at its last watermark. */
    public void markActive(int input) {
        check(input);
        if (statuses[input] == Status.IDLE) {
            setStatus(input, Status.ACTIVE);
            joinMin(watermarks[input]);
            publish();
        }
    }

    /** Input {@code input} ended: it holds nothing back any more. */
    public void end(int input) {
        check(input);
        Status before = statuses[input];
        if (before == Status.ENDED) {
            return;
        }
        long watermark = watermarks[input];
        setStatus(input, Status.ENDED);
        watermarks[input] = END_OF_TIME;
        if (before == Status.ACTIVE) {
            leaveMin(watermark);
        }
        publish();
    }

    /** The combined watermark emitted so far ({@link #NO_WATERMARK} before the first). */
    public long current() {
        return emitted;
    }

    public boolean isIdle() {
        return idle;
    }

    /** Whether every input ended (also when there is none). */
    public boolean allEnded() {
        return ended == inputs;
    }

    private void setStatus(int input, Status status) {
        Status before = statuses[input];
        active += (status == Status.ACTIVE ? 1 : 0) - (before == Status.ACTIVE ? 1 : 0);
        ended += (status == Status.ENDED ? 1 : 0) - (before == Status.ENDED ? 1 : 0);
        statuses[input] = status;
    }

    // ------------------------------------------------------------------ the minimum

    /** An input became active at {@code watermark}. */
    private void joinMin(long watermark) {
        if (watermark < min) {
            min = watermark;
            atMin = 1;
        } else if (watermark == min) {
            atMin++;
        }
    }

    /** An active input at {@code watermark} left it (rose, went idle or ended). */
    private void leaveMin(long watermark) {
        if (watermark == min && --atMin == 0) {
            recompute();
        }
    }

    private void recompute() {
        min = END_OF_TIME;
        atMin = 0;
        for (int i = 0; i < inputs; i++) {
            if (statuses[i] == Status.ACTIVE) {
                joinMin(watermarks[i]);
            }
        }
    }

    private void publish() {
        if (active == 0 && ended < inputs) {
            if (!idle) {
                idle = true;
                output.idle(true);
            }
            return;
        }
        if (idle) {
            idle = false;
            output.idle(false);
        }
        long combined = active > 0 ? min : END_OF_TIME;
        if (combined > emitted) {
            emitted = combined;
            output.watermark(combined);
        }
    }

    private void check(int input) {
        if (input < 0 || input >= inputs) {
            throw new IllegalArgumentException("no input " + input + " (of " + inputs + ")");
        }
    }
}
