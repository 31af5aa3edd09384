package io.duraflow.api.source;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;

/** Writes splits for the wire and the job event log. */
public interface SplitSerializer<S extends SourceSplit> {
    void write(S split, DataWriter out);

    S read(DataReader in);

    default byte[] toBytes(S split) {
        DataWriter out = new DataWriter(64);
        write(split, out);
        return out.toByteArray();
    }

    default S fromBytes(byte[] bytes) {
        return read(new DataReader(bytes));
    }
}
