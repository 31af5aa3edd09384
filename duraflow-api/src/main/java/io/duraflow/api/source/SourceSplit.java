package io.duraflow.api.source;

/** A unit of source input that one reader processes, e.g. a byte range of a file. */
public interface SourceSplit {
    /** Unique within the source; used in logs and the job event log. */
    String splitId();
}
