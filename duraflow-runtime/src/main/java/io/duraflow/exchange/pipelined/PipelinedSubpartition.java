package io.duraflow.exchange.pipelined;

import java.util.ArrayDeque;

/**
 * The queue of one consumer subtask: finished buffers and events in the order the producer put
 * them. The producer's task thread adds; the one reader (a local channel on the consumer's task
 * thread, or the network sender of a remote one) polls. Guarded by this object; the reader's
 * listener is called outside the lock whenever the queue turns non-empty, so a reader that saw it
 * empty is always woken.
 */
final class PipelinedSubpartition {
    private final PipelinedResultPartition parent;
    private final int index;
    private final ArrayDeque<BufferOrEvent> queue = new ArrayDeque<>();
    private int queuedBuffers;
    private Runnable listener;
    private boolean viewCreated;
    /** The reader released it (it failed or was cancelled): whatever comes is recycled at once. */
    private boolean released;
    /** Why the producer went away before its end; null while it is fine. */
    private String failure;
    private boolean endPolled;

    PipelinedSubpartition(PipelinedResultPartition parent, int index) {
        this.parent = parent;
        this.index = index;
    }

    /** Producer: appends a finished buffer or an event. */
    void add(BufferOrEvent element) {
        Runnable notify;
        synchronized (this) {
            if (released || failure != null) {
                if (element instanceof NetworkBuffer buffer) {
                    buffer.recycle();
                }
                return;
            }
            boolean wasEmpty = queue.isEmpty();
            queue.add(element);
            if (element instanceof NetworkBuffer) {
                queuedBuffers++;
            }
            notify = wasEmpty ? listener : null;
        }
        if (notify != null) {
            notify.run();
        }
    }

    /** Producer aborted: drops what is queued and tells the reader. */
    void fail(String reason) {
        Runnable notify;
        synchronized (this) {
            if (failure != null || endPolled) {
                return;
            }
            failure = reason;
            recycleQueuedLocked();
            notify = listener;
        }
        if (notify != null) {
            notify.run();
        }
    }

    private void recycleQueuedLocked() {
        for (BufferOrEvent element : queue) {
            if (element instanceof NetworkBuffer buffer) {
                buffer.recycle();
            }
        }
        queue.clear();
        queuedBuffers = 0;
    }

    synchronized int queuedBuffers() {
        return queuedBuffers;
    }

    /**
     * The reader's side; only one per subpartition (a pipelined subpartition is consumed once).
     *
     * @param dataAvailable called, from any thread, when the queue turns non-empty or the producer fails
     */
    SubpartitionView createView(Runnable dataAvailable) {
        boolean notify;
        synchronized (this) {
            if (viewCreated) {
                throw new IllegalStateException("subpartition " + index + " of partition " + parent.partitionId()
                        + " is already being consumed; a pipelined subpartition has one reader");
            }
            viewCreated = true;
            listener = dataAvailable;
            notify = !queue.isEmpty() || failure != null;
        }
        if (notify) {
            dataAvailable.run();
        }
        return new SubpartitionView(this);
    }

    /**
     * The next element, or null when there is none or the next is a buffer and {@code allowData}
     * is false (the remote sender has no credit; events need none).
     */
    BufferOrEvent poll(boolean allowData) throws ProducerFailedException {
        boolean consumed = false;
        BufferOrEvent element;
        synchronized (this) {
            if (failure != null) {
                throw new ProducerFailedException(failure);
            }
            if (released) {
                throw new IllegalStateException("subpartition " + index + " of " + parent.partitionId() + " was released");
            }
            element = queue.peek();
            if (element == null || (!allowData && element instanceof NetworkBuffer)) {
                return null;
            }
            queue.poll();
            if (element instanceof NetworkBuffer) {
                queuedBuffers--;
            } else if (element instanceof NetworkEvent.EndOfPartition) {
                endPolled = true;
                consumed = true;
            }
        }
        if (consumed) {
            parent.subpartitionConsumed(index);
        }
        return element;
    }

    synchronized boolean isNextBuffer() {
        return queue.peek() instanceof NetworkBuffer;
    }

    /** Reader gone (consumer failed or cancelled): drops the queue; later adds are recycled at once. */
    void release() {
        boolean wasConsumed;
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            wasConsumed = endPolled;
            recycleQueuedLocked();
        }
        if (!wasConsumed) {
            parent.subpartitionConsumed(index);
        }
    }
}
