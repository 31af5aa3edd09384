/** Operator (non-keyed) state of sources and sinks, the same for every state backend. */
package io.duraflow.state.operator;
