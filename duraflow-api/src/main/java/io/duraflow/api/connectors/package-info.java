/**
 * Built-in bounded sources.
 *
 * <ul>
 *   <li>{@link io.duraflow.api.connectors.SequenceSource} and
 *       {@link io.duraflow.api.connectors.GeneratedSource}: a range of longs, cut into
 *       {@link io.duraflow.api.connectors.RangeSplit}s, optionally mapped through a pure function.
 *   <li>{@link io.duraflow.api.connectors.TextFileSource} and
 *       {@link io.duraflow.api.connectors.CsvFileSource}: the lines of a file or of the files in a
 *       directory, cut into byte-range {@link io.duraflow.api.connectors.FileSplit}s.
 * </ul>
 *
 * <p>All of them hand out a split list fixed when the enumerator is created, through a
 * {@link io.duraflow.api.source.QueueSplitEnumerator}, and read one split at a time through an
 * {@link io.duraflow.api.source.IteratingSourceReader}.
 *
 * <p>Streaming connectors: {@link io.duraflow.api.connectors.TextFileSource#watching} and
 * {@link io.duraflow.api.connectors.CsvFileSource#watching} read the files that appear in a
 * directory, without end ({@code DirectoryWatchingEnumerator});
 * {@link io.duraflow.api.connectors.FileSink} writes part files exactly once through checkpoints
 * (a {@link io.duraflow.api.sink.TwoPhaseCommittingSink}).
 */
package io.duraflow.api.connectors;
