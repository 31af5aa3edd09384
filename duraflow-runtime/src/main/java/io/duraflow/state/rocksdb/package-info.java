/**
 * The RocksDB keyed state backend ({@code state.backend.type: rocksdb}): state in a local database
 * per operator instance, laid out as {@link io.duraflow.state.rocksdb.KeyLayout} draws it; native
 * incremental checkpoints ({@code NativeSnapshot}: hard-linked database checkpoints whose SST files
 * later checkpoints share), canonical savepoints ({@code CanonicalSnapshot}), and restore from either
 * with key-group clipping ({@code RocksDBRestore}). State objects read and write through the
 * {@code StateStore}, a bounded {@code WriteBackCache} of serialized values in front of the
 * database that every snapshot's synchronous part writes back first.
 */
package io.duraflow.state.rocksdb;
