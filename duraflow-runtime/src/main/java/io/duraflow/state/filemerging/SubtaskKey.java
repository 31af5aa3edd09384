package io.duraflow.state.filemerging;

/**
 * One parallel instance of a job vertex as file merging sees it: the unit whose incremental state
 * shares physical files ({@code shared/subtask-<index>-<parallelism>-v<vertex>/}). The parallelism
 * is part of the name, so a job restored with another parallelism never writes into (or deletes
 * from) the directories of its predecessor.
 *
 * @param vertex the job vertex's index in the job graph (the same for every run of one job)
 * @param subtask the instance's index, {@code 0 <= subtask < parallelism}
 * @param parallelism the vertex's parallelism
 */
public record SubtaskKey(int vertex, int subtask, int parallelism) {
    public SubtaskKey {
        if (vertex < 0 || parallelism < 1 || subtask < 0 || subtask >= parallelism) {
            throw new IllegalArgumentException("subtask " + subtask + " of " + parallelism + " of vertex " + vertex);
        }
    }

    /** The name of its directory under {@code shared/}. */
    public String sharedDirectoryName() {
        return "subtask-" + subtask + "-" + parallelism + "-v" + vertex;
    }

    @Override
    public String toString() {
        return "v" + vertex + "/" + subtask + "-of-" + parallelism;
    }
}
