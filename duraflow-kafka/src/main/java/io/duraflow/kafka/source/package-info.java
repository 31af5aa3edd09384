/**
 * {@link io.duraflow.kafka.source.KafkaSource}: reads Kafka topics with exact positions in every
 * checkpoint.
 *
 * <pre>
 *   JobManager (main thread)                TaskManager (task thread, one per subtask)
 *   KafkaSourceEnumerator                    KafkaSourceReader
 *     | callAsync: PartitionDiscovery ---+     |  KafkaConsumer: assign + seek, poll
 *     |   (KafkaMetadata over Admin)     |     |  per-partition next offset = position
 *     |&lt;-- new partitions, offsets ----+     |  snapshot: one KafkaPartitionSplit per partition
 *     | assignSplit(split, owner) -------------&gt;  addSplits
 *     | state: KafkaEnumeratorState            |  checkpoint complete: commitAsync (monitoring)
 * </pre>
 *
 * See docs/design/exactly-once-sinks-and-sources.md#kafkasource for the rules.
 */
package io.duraflow.kafka.source;
