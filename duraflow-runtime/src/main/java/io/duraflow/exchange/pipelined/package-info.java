/**
 * Pipelined exchanges for streaming: records flow from running producers to running consumers in
 * network buffers, with credit-based backpressure and aligned checkpoint barriers.
 *
 * <pre>
 *  producer task thread                                         consumer task thread
 *  ---------------------                                        --------------------
 *  PipelinedResultPartition (a ResultPartitionWriter)           PipelinedInputGate --- BarrierAligner
 *    write(): records -> buffer being filled                      pollNext(handler): one element,
 *    flush on full / event / buffer timeout                       round-robin over channels with data;
 *    availability(): backpressure future                          availability(): future for the mailbox
 *      |                                                               ^            ^
 *      v  one PipelinedSubpartition per consumer subtask               |            |
 *    [buf][buf][barrier][buf] --SubpartitionView--> LocalInputChannel (same TaskManager: the buffer itself)
 *                             \
 *                              `--> PartitionStreamService ==gRPC PartitionStreams.Stream==> RemoteInputChannel
 *                                   (sends a buffer per credit,       <== credit per freed receive buffer ==
 *                                    events without credit)           (withheld while alignment holds it)
 *
 *  Memory: NetworkBufferPool per TaskManager (taskmanager.network.memory, buffer-size) hands out
 *  LocalBufferPools: one per result partition (its share: buffers-per-subpartition x subpartitions,
 *  plus overdraft), one per input gate (buffers-per-channel x remote channels, reserved).
 * </pre>
 *
 * <p>{@link io.duraflow.exchange.pipelined.NetworkEnvironment} is the one object a TaskManager owns: memory,
 * registry, the stream service for its gRPC server, peer connections, and the factories producer
 * and consumer tasks call. {@link io.duraflow.exchange.pipelined.PipelinedPartitionRegistry} finds a TaskManager's partitions by id
 * for local channels and for the stream service; {@link
 * io.duraflow.exchange.pipelined.PartitionStreamConnections} keeps one gRPC connection per peer. The building
 * blocks here depend on {@code shuffle} (record layout, the writer interface) and {@code rpc}, never
 * on the TaskManager; {@code taskmanager.task.streaming.PipelinedInputAction} is the task loop over them.
 */
package io.duraflow.exchange.pipelined;
