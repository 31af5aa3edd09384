package io.duraflow.api.connectors;

import io.duraflow.api.NonRetriableException;
import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.QueueSplitEnumerator;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The lines of CSV files as lists of fields, read and split exactly like {@link TextFileSource}.
 *
 * <ul>
 *   <li>Fields are separated by a delimiter (default ','). A field that starts with '"' is
 *       quoted: the delimiter is plain text inside it and "" stands for one '"'. Text between a
 *       closing quote and the next delimiter is kept; a '"' elsewhere in a field is plain text.
 *   <li><b>Not supported:</b> quoted fields that contain line breaks. Each line is one record, and
 *       a quote not closed on its line fails the read with the file and byte offset.
 *   <li>Empty lines are skipped.
 *   <li>With {@code skipHeader}, the first line of every file is dropped (by the reader of the
 *       split that starts at offset 0).
 * </ul>
 *
 * <p>{@link #watching} reads the files that appear in a directory for as long as the job runs,
 * like {@link TextFileSource#watching}.
 */
public final class CsvFileSource implements Source<List<String>, FileSplit> {
    private static final TypeSerializer<List<String>> TYPE = Types.list(Types.STRING);

    private final Path path;
    private final char delimiter;
    private final boolean skipHeader;
    private final long splitSizeBytes;
    private final int readBufferBytes;
    /** How often a watching source lists its directory; null for a source that reads once. */
    private final Duration discoveryInterval;

    /** Comma-separated, no header, splits of 32 MiB. */
    public CsvFileSource(String path) {
        this(path, ',', false);
    }

    public CsvFileSource(String path, char delimiter, boolean skipHeader) {
        this(path, delimiter, skipHeader, FileSplitPlanner.DEFAULT_SPLIT_SIZE_BYTES);
    }

    public CsvFileSource(String path, char delimiter, boolean skipHeader, long splitSizeBytes) {
        this(path, delimiter, skipHeader, splitSizeBytes, FileLineReader.DEFAULT_BUFFER_BYTES);
    }

    CsvFileSource(String path, char delimiter, boolean skipHeader, long splitSizeBytes, int readBufferBytes) {
        this(path, delimiter, skipHeader, splitSizeBytes, readBufferBytes, null);
    }

    private CsvFileSource(String path, char delimiter, boolean skipHeader, long splitSizeBytes, int readBufferBytes,
            Duration discoveryInterval) {
        CsvParser.validateDelimiter(delimiter);
        FileSplitPlanner.validateSplitSize(splitSizeBytes);
        this.path = ConnectorPaths.absolute(path, discoveryInterval == null ? "input path" : "watched directory");
        this.delimiter = delimiter;
        this.skipHeader = skipHeader;
        this.splitSizeBytes = splitSizeBytes;
        this.readBufferBytes = readBufferBytes;
        this.discoveryInterval = discoveryInterval;
    }

    /**
     * The CSV records of every file that is or appears in {@code directory}, listed every
     * {@code discoveryInterval}, in splits of 32 MiB; the source never ends.
     */
    public static CsvFileSource watching(String directory, Duration discoveryInterval, char delimiter,
            boolean skipHeader) {
        return watching(directory, discoveryInterval, delimiter, skipHeader, FileSplitPlanner.DEFAULT_SPLIT_SIZE_BYTES);
    }

    public static CsvFileSource watching(String directory, Duration discoveryInterval, char delimiter,
            boolean skipHeader, long splitSizeBytes) {
        DirectoryWatchingEnumerator.validateInterval(discoveryInterval);
        return new CsvFileSource(directory, delimiter, skipHeader, splitSizeBytes, FileLineReader.DEFAULT_BUFFER_BYTES,
                discoveryInterval);
    }

    @Override
    public SplitEnumerator<FileSplit> createEnumerator(SplitEnumeratorContext<FileSplit> context) throws IOException {
        if (discoveryInterval != null) {
            return DirectoryWatchingEnumerator.create(context, path, splitSizeBytes, discoveryInterval);
        }
        return new QueueSplitEnumerator<>(context, FileSplit.SERIALIZER, FileSplitPlanner.plan(path, splitSizeBytes));
    }

    @Override
    public SplitEnumerator<FileSplit> restoreEnumerator(SplitEnumeratorContext<FileSplit> context, byte[] state) {
        if (discoveryInterval != null) {
            return DirectoryWatchingEnumerator.restore(context, path, splitSizeBytes, discoveryInterval, state);
        }
        return QueueSplitEnumerator.restore(context, FileSplit.SERIALIZER, state);
    }

    @Override
    public Boundedness boundedness() {
        return discoveryInterval == null ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<List<String>, FileSplit> createReader(SourceReaderContext context) {
        return new FileLineReader<>(context, this::parse, skipHeader, readBufferBytes);
    }

    private List<String> parse(String line, FileSplit split, long lineOffset) {
        if (line.isEmpty()) {
            return null;
        }
        try {
            return CsvParser.parse(line, delimiter);
        } catch (IllegalArgumentException e) {
            // Every attempt reads the same bytes: restarting cannot help, so the job fails at once.
            throw new NonRetriableException("bad CSV line at byte " + lineOffset + " of " + split.path()
                    + ": " + e.getMessage(), e);
        }
    }

    @Override
    public SplitSerializer<FileSplit> splitSerializer() {
        return FileSplit.SERIALIZER;
    }

    @Override
    public TypeSerializer<List<String>> producedType() {
        return TYPE;
    }

    @Override
    public String description() {
        return "csv(" + path + ",delimiter=" + CsvParser.describe(delimiter) + ",skipHeader=" + skipHeader
                + ",splitSize=" + splitSizeBytes
                + (discoveryInterval == null ? "" : ",watch=" + discoveryInterval.toMillis() + "ms") + ")";
    }
}
