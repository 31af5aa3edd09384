package io.duraflow.jobmanager.recovery;

/**
 * One subtask of a job vertex, whatever its attempt. Orders by vertex, then subtask.
 *
 * @param vertex  job vertex id
 * @param subtask subtask index within the vertex
 */
public record ExecutionKey(int vertex, int subtask) implements Comparable<ExecutionKey> {

    @Override
    public int compareTo(ExecutionKey other) {
        int byVertex = Integer.compare(vertex, other.vertex);
        return byVertex != 0 ? byVertex : Integer.compare(subtask, other.subtask);
    }

    /** "v1/0", as in the JobMaster's log lines. */
    @Override
    public String toString() {
        return "v" + vertex + "/" + subtask;
    }
}
