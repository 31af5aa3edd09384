package io.duraflow.exchange.pipelined;

/**
 * What travels through a pipelined subpartition and an input channel, in order: a buffer of
 * records or an event. Events are never mixed into a data buffer, so a barrier splits the stream
 * exactly between two buffers.
 */
public sealed interface BufferOrEvent permits NetworkBuffer, NetworkEvent {
}
