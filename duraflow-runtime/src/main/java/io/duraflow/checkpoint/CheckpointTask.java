package io.duraflow.checkpoint;

/**
 * One attempt of one parallel instance of a job vertex, as the coordinator sees it: acknowledgements
 * and declines of other attempts (an earlier run of a restarted task) do not count.
 */
public record CheckpointTask(int vertex, int subtask, int attempt) {
    @Override
    public String toString() {
        return "vertex " + vertex + " subtask " + subtask + " attempt " + attempt;
    }
}
