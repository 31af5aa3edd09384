/**
 * The heap state backend ({@code state.backend.type: heap}): keyed state as maps per key group,
 * copied on write while snapshots are written, in the canonical key-groups format.
 */
package io.duraflow.state.heap;
