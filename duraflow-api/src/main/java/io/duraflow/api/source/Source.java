package io.duraflow.api.source;

import io.duraflow.api.types.TypeSerializer;

/**
 * A split-based source. The {@link SplitEnumerator} runs in the JobManager (as an operator
 * coordinator) and hands out splits; one {@link SourceReader} per parallel task reads them.
 */
public interface Source<T, S extends SourceSplit> {
    SplitEnumerator<S> createEnumerator(SplitEnumeratorContext<S> context) throws Exception;

    /** Recreates an enumerator from {@link SplitEnumerator#snapshotState(long)} bytes. */
    SplitEnumerator<S> restoreEnumerator(SplitEnumeratorContext<S> context, byte[] state) throws Exception;

    SourceReader<T, S> createReader(SourceReaderContext context) throws Exception;

    SplitSerializer<S> splitSerializer();

    TypeSerializer<T> producedType();

    /** Whether the source ends; every source so far does. The plan records it per source vertex. */
    default Boundedness boundedness() {
        return Boundedness.BOUNDED;
    }

    /** Identifies the source's configuration for the plan fingerprint (path, range, ...). */
    String description();
}
