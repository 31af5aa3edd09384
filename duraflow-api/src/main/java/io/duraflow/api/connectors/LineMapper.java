package io.duraflow.api.connectors;

/** Turns one line of a file split into a record, or null to skip the line. */
@FunctionalInterface
interface LineMapper<T> {
    /**
     * @param line the line without its line end
     * @param split the split being read, for error messages
     * @param lineOffset the file offset of the line's first byte
     */
    T map(String line, FileSplit split, long lineOffset);
}
