package io.duraflow.jobmanager.events;

import java.nio.ByteBuffer;
import java.util.Arrays;

/** Encoded records waiting to be written: a growable byte array and the number of events in it. Not thread-safe. */
final class RecordBuffer {
    private static final int INITIAL_CAPACITY = 4096;

    private byte[] bytes = new byte[INITIAL_CAPACITY];
    private int size;
    private int events;

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

    /** The buffered bytes; valid until the next change. */
    ByteBuffer contents() {
        return ByteBuffer.wrap(bytes, 0, size);
    }

    /** Empties the buffer; gives back memory beyond {@code keepBytes} that an unusually large batch took. */
    void clear(int keepBytes) {
        size = 0;
        events = 0;
        if (bytes.length > Math.max(keepBytes, INITIAL_CAPACITY)) {
            bytes = new byte[Math.max(keepBytes, INITIAL_CAPACITY)];
        }
    }
}
