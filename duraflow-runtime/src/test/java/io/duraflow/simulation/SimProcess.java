package io.duraflow.simulation;

/**
 * A simulated process: alive until killed (SIGKILL: its mailboxes drop everything), and frozen
 * while paused (SIGSTOP: its mailboxes keep their mails and run none). A restart is a new process
 * object, so nothing of a dead incarnation comes back.
 */
final class SimProcess {
    private final String name;
    private boolean alive = true;
    private boolean frozen;

    SimProcess(String name) {
        this.name = name;
    }

    String name() {
        return name;
    }

    boolean alive() {
        return alive;
    }

    boolean frozen() {
        return frozen;
    }

    /** Alive and not frozen: it runs its mails and answers. */
    boolean running() {
        return alive && !frozen;
    }

    void kill() {
        alive = false;
        frozen = false;
    }

    void freeze() {
        frozen = true;
    }

    void thaw() {
        frozen = false;
    }

    @Override
    public String toString() {
        return name + (alive ? frozen ? " (frozen)" : "" : " (dead)");
    }
}
