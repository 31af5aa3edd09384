package io.duraflow.jobmanager.events;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Encoded records waiting to be written: a growable byte array, the number of events in it, and
 * the collected data files its records refer to (written first). Not thread-safe.
 */
final class RecordBuffer {
    private static final int INITIAL_CAPACITY = 4096;

    private byte[] bytes = new byte[INITIAL_CAPACITY];
    private int size;
    private int events;
    private final List<CollectedDataFiles.Blob> blobs = new ArrayList<>();

    /** A record, and the files it refers to. */
    void add(byte[] record, List<CollectedDataFiles.Blob> referred) {
        blobs.addAll(referred);
        add(record);
    }

    void add(byte[] record) {
        if (bytes.length - size < record.length) {
            long wanted = Math.max((long) size + record.length, 2L * bytes.length);
            bytes = Arrays.copyOf(bytes, (int) Math.min(wanted, Integer.MAX_VALUE - 16));
        }
        System.arraycopy(record, 0, bytes, size, record.length);
        size += record.length;
        events++;
    }

    int size() {
        return size;
    }

    int events() {
        return events;
    }

    boolean isEmpty() {
        return events == 0;
    }

    /** Files the buffered records refer to, in order; valid until the next change. */
    List<CollectedDataFiles.Blob> blobs() {
        return blobs;
    }

    /** The buffered bytes; valid until the next change. */
    ByteBuffer contents() {
        return ByteBuffer.wrap(bytes, 0, size);
    }

    /** Empties the buffer; gives back memory beyond {@code keepBytes} that an unusually large batch took. */
    void clear(int keepBytes) {
        size = 0;
        events = 0;
        blobs.clear();
        if (bytes.length > Math.max(keepBytes, INITIAL_CAPACITY)) {
            bytes = new byte[Math.max(keepBytes, INITIAL_CAPACITY)];
        }
    }
}
