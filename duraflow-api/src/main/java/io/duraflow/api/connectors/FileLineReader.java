package io.duraflow.api.connectors;

import io.duraflow.api.source.IteratingSourceReader;
import io.duraflow.api.source.SourceReaderContext;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Reads the lines of file splits and maps them to records.
 *
 * <p>A split {@code [start, end)} owns the lines whose first byte lies in it. A line starts at
 * offset 0 or right after a '\n', so a reader with {@code start > 0} skips to the byte after the
 * first '\n' at or after {@code start - 1} (if the byte before the split is a '\n', the split
 * starts with a line of its own). It then reads lines while the next one starts before
 * {@code end}; the last of them may run past {@code end}, up to its '\n' or the end of the file.
 */
final class FileLineReader<T> extends IteratingSourceReader<T, FileSplit> {
    static final int DEFAULT_BUFFER_BYTES = 128 << 10;

    private final LineMapper<T> mapper;
    private final boolean skipFirstLineOfFile;
    /** Reused by every split this reader opens; one split is open at a time. */
    private final byte[] buffer;

    FileLineReader(SourceReaderContext context, LineMapper<T> mapper, boolean skipFirstLineOfFile,
            int bufferBytes) {
        this(context, mapper, skipFirstLineOfFile, bufferBytes, DEFAULT_RECORDS_PER_POLL);
    }

    FileLineReader(SourceReaderContext context, LineMapper<T> mapper, boolean skipFirstLineOfFile,
            int bufferBytes, int recordsPerPoll) {
        super(context, recordsPerPoll);
        if (bufferBytes < 1) {
            throw new IllegalArgumentException("read buffer must have at least 1 byte, got " + bufferBytes);
        }
        this.mapper = mapper;
        this.skipFirstLineOfFile = skipFirstLineOfFile;
        this.buffer = new byte[bufferBytes];
    }

    @Override
    protected Iterator<T> openSplit(FileSplit split) throws IOException {
        FileChannel channel = open(split);
        try {
            long size = channel.size();
            if (size < split.end()) {
                throw new IOException("input file " + split.path() + " shrank since it was listed (input files must"
                        + " not change once visible): it has " + size + " bytes, split " + split.splitId()
                        + " ends at " + split.end());
            }
            return new SplitIterator(split, channel);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static FileChannel open(FileSplit split) throws IOException {
        try {
            return FileChannel.open(Path.of(split.path()), StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            FileNotFoundException notFound = new FileNotFoundException("input file " + split.path()
                    + " no longer exists (it was listed when its splits were planned; split " + split.splitId() + ")");
            notFound.initCause(e);
            throw notFound;
        } catch (IOException e) {
            throw new IOException("cannot open input file " + split.path() + ": " + e, e);
        }
    }

    /** The lines from the one {@code iterator} returns next: a split starting where that line starts. */
    @Override
    protected FileSplit remainder(FileSplit split, Iterator<T> iterator, long emitted) {
        long from = ((SplitIterator) iterator).nextLineOffset();
        return from < 0 || from >= split.end() ? null : new FileSplit(split.path(), from, split.end() - from);
    }

    @Override
    protected void closeSplit(FileSplit split, Iterator<T> iterator) throws IOException {
        ((SplitIterator) iterator).close();
    }

    /** The records of one split; lines are read ahead by at most one record. */
    private final class SplitIterator implements Iterator<T>, Closeable {
        private final FileSplit split;
        private final FileChannel channel;
        private final LineScanner scanner;
        private boolean exhausted;
        private T next;
        /** Where the line of {@link #next} starts. */
        private long nextOffset;

        SplitIterator(FileSplit split, FileChannel channel) throws IOException {
            this.split = split;
            this.channel = channel;
            this.scanner = new LineScanner(channel, buffer);
            if (split.start() == 0) {
                scanner.seek(0);
                if (skipFirstLineOfFile) {
                    scanner.readLine();
                }
            } else {
                scanner.seek(split.start() - 1);
                exhausted = !scanner.skipPastNewline();
            }
        }

        @Override
        public boolean hasNext() {
            try {
                while (next == null && !exhausted) {
                    long lineOffset = scanner.offset();
                    String line = lineOffset < split.end() ? scanner.readLine() : null;
                    if (line == null) {
                        exhausted = true;
                    } else {
                        next = mapper.map(line, split, lineOffset);
                        nextOffset = lineOffset;
                    }
                }
                return next != null;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read input file " + split.path() + ": " + e, e);
            }
        }

        @Override
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            T record = next;
            next = null;
            return record;
        }

        /**
         * Where the first line not yet returned starts, or -1 when no line of the split is left.
         * A line starts right after a '\n', so a split starting there reads it whole.
         */
        long nextLineOffset() {
            if (next != null) {
                return nextOffset;
            }
            return exhausted ? -1 : scanner.offset();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
