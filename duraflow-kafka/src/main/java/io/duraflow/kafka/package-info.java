/**
 * Kafka connectors: {@code io.duraflow.kafka.source.KafkaSource} reads topics with exact
 * positions in every checkpoint, {@code io.duraflow.kafka.sink.KafkaSink} writes them with no
 * guarantee, at least once or exactly once (Kafka transactions committed with checkpoints), and
 * {@code io.duraflow.kafka.local.LocalKafkaBroker} starts a single-node KRaft broker as a process
 * of its own for demos and tests.
 */
package io.duraflow.kafka;
