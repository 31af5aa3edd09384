/**
 * A Kafka broker for demos and tests: {@link io.duraflow.kafka.local.LocalKafkaBroker} starts a
 * single-node KRaft broker (broker and controller in one process) as a child process, from the jars
 * that {@code duraflow-kafka-broker} copies to its {@code target/lib}, so that none of the broker's
 * jars are on Duraflow's class path.
 */
package io.duraflow.kafka.local;
