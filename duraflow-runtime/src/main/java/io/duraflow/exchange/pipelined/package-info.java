/**
 * Pipelined exchanges for streaming: records flow from running producers to running consumers in
 * network buffers, with credit-based backpressure and aligned checkpoint barriers. The picture of
 * threads, channels and memory: see docs/design/data-exchange.md#pipelined-exchanges.
 */
package io.duraflow.exchange.pipelined;
