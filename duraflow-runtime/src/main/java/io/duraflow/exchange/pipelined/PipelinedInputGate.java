package io.duraflow.exchange.pipelined;

import io.duraflow.eventtime.WatermarkCombiner;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The input of a streaming task: every channel of every input edge, read in the order data
 * arrives, with aligned checkpoint barriers (see {@link BarrierAligner} for the rules).
 *
 * <p>Non-blocking: {@link #pollNext} handles at most one element and returns {@link
 * InputStatus#NOTHING_AVAILABLE} when no channel has data; the task then waits on {@link
 * #availability()} in its mailbox (with a timeout for its output flush) instead of spinning.
 * Channels report data through a listener (any thread), which queues the channel and completes
 * the availability future; the task thread alone polls channels and touches alignment state.
 *
 * <p>Each channel's watermarks and idleness go into a {@link WatermarkCombiner}: the gate's event
 * time is the lowest watermark of its channels that are neither idle nor ended, and reaches the
 * handler as it rises. A channel held for alignment delivers its watermarks after the barrier.
 *
 * <p>Channels with data are served round-robin: after each element its channel goes to the back
 * of the queue, so one busy channel cannot starve the others. A held channel is taken out of the
 * queue and put back when alignment releases it.
 */
public final class PipelinedInputGate implements AutoCloseable {
    /** What {@link #pollNext} did. */
    public enum InputStatus {
        /** Handled one element; more may be there, call again. */
        MORE_AVAILABLE,
        /** Nothing to read now: wait on {@link #availability()}. */
        NOTHING_AVAILABLE,
        /** Every channel delivered its end of partition. */
        END_OF_INPUT
    }

    /** Where the gate delivers what it reads; called on the task thread from inside {@link #pollNext}. */
    public interface Handler {
        /** A buffer of records of input {@code input}; the handler recycles it once it decoded it. */
        void onBuffer(int input, NetworkBuffer buffer) throws Exception;

        /** Every channel of input {@code input} ended. */
        void onEndOfInput(int input) throws Exception;

        /** Every channel delivered this barrier (or finished): snapshot now, before any later record. */
        void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) throws Exception;

        /** Alignment of a checkpoint was given up (cancel marker or a newer barrier); held channels are released. */
        void onCheckpointAborted(long checkpointId, String reason) throws Exception;

        /**
         * The gate's event time rose to {@code watermark}: the lowest watermark of its channels
         * that are neither idle nor ended ({@code Long.MAX_VALUE} once every channel ended).
         */
        default void onWatermark(long watermark) throws Exception {}

        /** Every channel that has not ended is idle ({@code idle}), or one is active again. */
        default void onWatermarkStatus(boolean idle) throws Exception {}
    }

    /** One channel and the input edge (index at the head operator) it belongs to. */
    public record Channel(int input, PipelinedInputChannel channel) {
        public Channel {
            Objects.requireNonNull(channel, "channel");
        }
    }

    private final List<Channel> channels;
    private final int[] openChannelsPerInput;
    private final boolean[] finished;
    private final boolean[] held;
    private int openChannels;
    private final BarrierAligner aligner;
    /** The channels' watermarks, by channel index; what it emits waits in {@link #eventTime} for the handler. */
    private final WatermarkCombiner watermarks;
    /** Changes of the combined watermark (a Long) or status (a Boolean: idle) not yet given to the handler. */
    private final ArrayDeque<Object> eventTime = new ArrayDeque<>(2);
    /** The receive buffers of the remote channels, given back on close; null when the caller owns them. */
    private final LocalBufferPool receivePool;
    private Handler handler;
    /** When the alignment in progress began (its first barrier), from System.nanoTime. */
    private long alignmentStartNanos;
    /** How long the last completed alignment took, first barrier to last, in nanoseconds. */
    private long lastAlignmentNanos;

    /** Guarded by {@link #lock}: channels that may have data, and whether each is in the queue. */
    private final Object lock = new Object();
    private final ArrayDeque<Integer> withData = new ArrayDeque<>();
    private final boolean[] queued;
    private CompletableFuture<Void> availability = new CompletableFuture<>();
    private boolean closed;

    public PipelinedInputGate(List<Channel> channels) {
        this(channels, null);
    }

    /** A gate that destroys {@code receivePool} (its remote channels' receive buffers) when it closes. */
    public PipelinedInputGate(List<Channel> channels, LocalBufferPool receivePool) {
        this.receivePool = receivePool;
        if (channels.isEmpty()) {
            throw new IllegalArgumentException("an input gate needs at least one channel");
        }
        this.channels = List.copyOf(channels);
        int inputs = 0;
        for (Channel channel : this.channels) {
            if (channel.input() < 0) {
                throw new IllegalArgumentException("input index must be >= 0, got " + channel.input());
            }
            inputs = Math.max(inputs, channel.input() + 1);
        }
        this.openChannelsPerInput = new int[inputs];
        for (Channel channel : this.channels) {
            openChannelsPerInput[channel.input()]++;
        }
        this.openChannels = this.channels.size();
        this.finished = new boolean[this.channels.size()];
        this.held = new boolean[this.channels.size()];
        this.queued = new boolean[this.channels.size()];
        this.aligner = new BarrierAligner(this.channels.size(), new AlignmentActions());
        this.watermarks = new WatermarkCombiner(new WatermarkCombiner.Output() {
            @Override
            public void watermark(long watermark) {
                eventTime.add(watermark);
            }

            @Override
            public void idle(boolean idle) {
                eventTime.add(idle);
            }
        });
        watermarks.addInputs(this.channels.size());
    }

    /** Starts every channel (a remote one opens its stream and grants its first credit). Task thread. */
    public void start() throws java.io.IOException {
        for (int i = 0; i < channels.size(); i++) {
            int index = i;
            channels.get(i).channel().start(() -> dataAvailable(index));
        }
    }

    /** Done when {@link #pollNext} may have something to do; a new future after each NOTHING_AVAILABLE. */
    public CompletableFuture<Void> availability() {
        synchronized (lock) {
            return availability;
        }
    }

    private void dataAvailable(int channel) {
        CompletableFuture<Void> toComplete;
        synchronized (lock) {
            if (!queued[channel] && !closed) {
                queued[channel] = true;
                withData.add(channel);
            }
            toComplete = availability;
        }
        toComplete.complete(null);
    }

    /**
     * Handles at most one buffer or event of some channel: a buffer goes to the handler, a barrier
     * or cancel marker to alignment (which may call the handler), an end of partition may end an
     * input. Task thread.
     *
     * @throws ProducerFailedException when a channel's producer or connection is gone
     */
    public InputStatus pollNext(Handler handler) throws Exception {
        this.handler = handler;
        while (true) {
            if (openChannels == 0) {
                return InputStatus.END_OF_INPUT;
            }
            int index = nextChannelWithData();
            if (index < 0) {
                return InputStatus.NOTHING_AVAILABLE;
            }
            if (held[index] || finished[index]) {
                continue; // put back on release; a finished channel has nothing more
            }
            Channel channel = channels.get(index);
            BufferOrEvent element = channel.channel().poll();
            if (element == null) {
                continue; // its listener queues it again when data comes
            }
            requeue(index);
            if (element instanceof NetworkBuffer buffer) {
                handler.onBuffer(channel.input(), buffer);
            } else if (element instanceof NetworkEvent.CheckpointBarrier barrier) {
                if (!aligner.isAligning() || barrier.checkpointId() > aligner.currentCheckpointId()) {
                    alignmentStartNanos = System.nanoTime();
                }
                aligner.onBarrier(index, barrier);
            } else if (element instanceof NetworkEvent.CancelCheckpointMarker marker) {
                aligner.onCancelMarker(index, marker.checkpointId());
            } else if (element instanceof NetworkEvent.Watermark watermark) {
                watermarks.update(index, watermark.timestamp());
                deliverEventTime();
            } else if (element instanceof NetworkEvent.WatermarkStatus status) {
                if (status.idle()) {
                    watermarks.markIdle(index);
                } else {
                    watermarks.markActive(index);
                }
                deliverEventTime();
            } else if (element instanceof NetworkEvent.EndOfPartition) {
                channelFinished(index);
            } else {
                throw new IllegalStateException("unknown element " + element + " from " + channel.channel().describe());
            }
            return openChannels == 0 ? InputStatus.END_OF_INPUT : InputStatus.MORE_AVAILABLE;
        }
    }

    private int nextChannelWithData() {
        synchronized (lock) {
            Integer index = withData.poll();
            if (index == null) {
                if (availability.isDone()) {
                    availability = new CompletableFuture<>();
                }
                return -1;
            }
            queued[index] = false;
            return index;
        }
    }

    private void requeue(int index) {
        synchronized (lock) {
            if (!queued[index]) {
                queued[index] = true;
                withData.add(index);
            }
        }
    }

    private void channelFinished(int index) throws Exception {
        finished[index] = true;
        channels.get(index).channel().close();
        openChannels--;
        int input = channels.get(index).input();
        aligner.onChannelFinished(index);
        // An ended channel holds event time back no more; once all ended it is the end of time,
        // which reaches the handler before the end of the input (every event-time timer fires).
        watermarks.end(index);
        deliverEventTime();
        if (--openChannelsPerInput[input] == 0) {
            handler.onEndOfInput(input);
        }
    }

    private void deliverEventTime() throws Exception {
        Object change;
        while ((change = eventTime.poll()) != null) {
            if (change instanceof Long watermark) {
                handler.onWatermark(watermark);
            } else {
                handler.onWatermarkStatus((Boolean) change);
            }
        }
    }

    /** The gate's event time so far ({@code Long.MIN_VALUE} before the first watermark). */
    public long currentWatermark() {
        return watermarks.current();
    }

    /**
     * The JobManager aborted checkpoint {@code checkpointId}: an alignment of it ends and releases
     * its held channels now (see {@link BarrierAligner#onAbortNotified}). Task thread.
     */
    public void abortCheckpoint(long checkpointId, String reason) throws Exception {
        aligner.onAbortNotified(checkpointId, reason);
    }

    /** How long the last aligned checkpoint waited from its first barrier to its last, in milliseconds. */
    public long lastAlignmentMs() {
        return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(lastAlignmentNanos);
    }

    /** Whether alignment holds channel {@code index}; for tests and status. */
    public boolean isHeld(int index) {
        return held[index];
    }

    public int channelCount() {
        return channels.size();
    }

    /** Closes every channel (their buffers go back to their pools). Task thread; idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            withData.clear();
        }
        for (Channel channel : channels) {
            channel.channel().close();
        }
        if (receivePool != null) {
            receivePool.destroy();
        }
        availability.complete(null);
    }

    private final class AlignmentActions implements BarrierAligner.Actions {
        @Override
        public void hold(int channel) {
            held[channel] = true;
            channels.get(channel).channel().block();
        }

        @Override
        public void releaseAll() {
            for (int i = 0; i < held.length; i++) {
                if (held[i]) {
                    held[i] = false;
                    channels.get(i).channel().resume();
                    requeue(i); // it may have data that arrived while held
                }
            }
            CompletableFuture<Void> toComplete;
            synchronized (lock) {
                toComplete = withData.isEmpty() ? null : availability;
            }
            if (toComplete != null) {
                toComplete.complete(null);
            }
        }

        @Override
        public void aligned(NetworkEvent.CheckpointBarrier barrier) throws Exception {
            lastAlignmentNanos = System.nanoTime() - alignmentStartNanos;
            handler.onBarrierAligned(barrier);
        }

        @Override
        public void aborted(long checkpointId, String reason) throws Exception {
            if (handler != null) { // null before the first poll: nothing downstream to tell yet
                handler.onCheckpointAborted(checkpointId, reason);
            }
        }
    }
}
