/**
 * The Nexmark benchmark's events (an online auction: {@link io.duraflow.examples.nexmark.Person},
 * {@link io.duraflow.examples.nexmark.Auction} and {@link io.duraflow.examples.nexmark.Bid}, one
 * of them in each {@link io.duraflow.examples.nexmark.Event}) and their deterministic generator.
 *
 * <pre>
 *   NexmarkConfig ──▶ NexmarkGenerator.event(n) ──▶ Event ──▶ NexmarkSource (Duraflow jobs)
 *                                                        └──▶ another engine's source (Flink, in the benchmark)
 * </pre>
 *
 * <p>The generator is plain Java with no Duraflow runtime dependency, a pure function of the
 * event number, so that Duraflow's queries and the same queries on another engine read exactly the
 * same events. Events carry their event time as {@code dateTime} (epoch ms), which {@link
 * io.duraflow.examples.nexmark.Event#timestamp()} returns.
 */
package io.duraflow.examples.nexmark;
