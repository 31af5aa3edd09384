/**
 * The byte formats of state snapshots, versioned and checksummed, each drawn byte by byte in its
 * class: {@link io.duraflow.state.format.KeyedSnapshotFormat} (full keyed state by key group, the
 * canonical savepoint format every backend reads) and {@link
 * io.duraflow.state.format.OperatorSnapshotFormat} (operator state lists element by element).
 */
package io.duraflow.state.format;
