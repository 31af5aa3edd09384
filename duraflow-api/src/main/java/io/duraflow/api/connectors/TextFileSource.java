package io.duraflow.api.connectors;

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

/**
 * The lines of a UTF-8 text file, or of the files directly in a directory (names starting with
 * '.' or '_' and hidden files skipped; read in name order). Lines end with "\n" or "\r\n"; the
 * line end is not part of the record; a last line without a line end is a line, an empty file
 * has none. Every file is cut into {@link FileSplit}s of {@code splitSizeBytes}.
 *
 * <p>The files are listed and cut when the enumerator is created (in the JobManager): a path
 * that does not exist fails there with {@link java.io.FileNotFoundException}
 * {@code input path not found: /abs/path}. A relative path is resolved against the working
 * directory of the process that builds the job.
 *
 * <p>{@link #watching} makes an unbounded source instead: it reads the files that appear in a
 * directory for as long as the job runs (see {@code DirectoryWatchingEnumerator} for the rules:
 * files are taken once complete, i.e. once renamed to a name starting with neither '.' nor '_',
 * and must not change afterwards; its checkpoints make a restored job read every file once).
 */
public final class TextFileSource implements Source<String, FileSplit> {
    private final Path path;
    private final long splitSizeBytes;
    private final int readBufferBytes;
    /** How often a watching source lists its directory; null for a source that reads once. */
    private final Duration discoveryInterval;

    /** Reads {@code path} in splits of 32 MiB. */
    public TextFileSource(String path) {
        this(path, FileSplitPlanner.DEFAULT_SPLIT_SIZE_BYTES);
    }

    public TextFileSource(String path, long splitSizeBytes) {
        this(path, splitSizeBytes, FileLineReader.DEFAULT_BUFFER_BYTES);
    }

    /** With a chosen read buffer, so tests can make lines span buffer refills. */
    TextFileSource(String path, long splitSizeBytes, int readBufferBytes) {
        this(path, splitSizeBytes, readBufferBytes, null);
    }

    private TextFileSource(String path, long splitSizeBytes, int readBufferBytes, Duration discoveryInterval) {
        FileSplitPlanner.validateSplitSize(splitSizeBytes);
        this.path = ConnectorPaths.absolute(path, discoveryInterval == null ? "input path" : "watched directory");
        this.splitSizeBytes = splitSizeBytes;
        this.readBufferBytes = readBufferBytes;
        this.discoveryInterval = discoveryInterval;
    }

    /**
     * The lines of every file that is or appears in {@code directory}, listed every
     * {@code discoveryInterval}, in splits of 32 MiB; the source never ends. The directory must
     * exist when the job starts.
     */
    public static TextFileSource watching(String directory, Duration discoveryInterval) {
        return watching(directory, discoveryInterval, FileSplitPlanner.DEFAULT_SPLIT_SIZE_BYTES);
    }

    public static TextFileSource watching(String directory, Duration discoveryInterval, long splitSizeBytes) {
        return watching(directory, discoveryInterval, splitSizeBytes, FileLineReader.DEFAULT_BUFFER_BYTES);
    }

    static TextFileSource watching(String directory, Duration discoveryInterval, long splitSizeBytes,
            int readBufferBytes) {
        DirectoryWatchingEnumerator.validateInterval(discoveryInterval);
        return new TextFileSource(directory, splitSizeBytes, readBufferBytes, discoveryInterval);
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
    public SourceReader<String, FileSplit> createReader(SourceReaderContext context) {
        return new FileLineReader<>(context, (line, split, offset) -> line, false, readBufferBytes);
    }

    @Override
    public SplitSerializer<FileSplit> splitSerializer() {
        return FileSplit.SERIALIZER;
    }

    @Override
    public TypeSerializer<String> producedType() {
        return Types.STRING;
    }

    @Override
    public String description() {
        return "text(" + path + ",splitSize=" + splitSizeBytes
                + (discoveryInterval == null ? "" : ",watch=" + discoveryInterval.toMillis() + "ms") + ")";
    }
}
