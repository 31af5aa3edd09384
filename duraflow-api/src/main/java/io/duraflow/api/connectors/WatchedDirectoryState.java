package io.duraflow.api.connectors;

import io.duraflow.api.types.ChecksummedBytes;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SortedSet;

/**
 * What a {@link DirectoryWatchingEnumerator} checkpoints: the names of every file it has seen and
 * the splits it has not handed out. Format: see
 * docs/design/exactly-once-sinks-and-sources.md#watcheddirectorystate.
 */
record WatchedDirectoryState(List<String> seenFileNames, List<FileSplit> unassignedSplits) {
    static final int VERSION = 1;

    WatchedDirectoryState {
        seenFileNames = List.copyOf(seenFileNames);
        unassignedSplits = List.copyOf(unassignedSplits);
        for (int i = 1; i < seenFileNames.size(); i++) {
            if (seenFileNames.get(i - 1).compareTo(seenFileNames.get(i)) >= 0) {
                throw new IllegalArgumentException("seen file names must be sorted and distinct: '"
                        + seenFileNames.get(i - 1) + "' before '" + seenFileNames.get(i) + "'");
            }
        }
    }

    static WatchedDirectoryState of(SortedSet<String> seen, Collection<FileSplit> unassigned) {
        return new WatchedDirectoryState(new ArrayList<>(seen), new ArrayList<>(unassigned));
    }

    byte[] toBytes() {
        DataWriter out = new DataWriter(64 + 16 * seenFileNames.size());
        out.writeVarInt(VERSION);
        out.writeVarInt(seenFileNames.size());
        String previous = "";
        for (String name : seenFileNames) {
            int shared = sharedPrefix(previous, name);
            out.writeVarInt(shared);
            out.writeString(name.substring(shared));
            previous = name;
        }
        out.writeVarInt(unassignedSplits.size());
        for (FileSplit split : unassignedSplits) {
            byte[] bytes = FileSplit.SERIALIZER.toBytes(split);
            out.writeVarInt(bytes.length);
            out.writeBytes(bytes);
        }
        return ChecksummedBytes.seal(out);
    }

    /**
     * Reads {@link #toBytes()} output.
     *
     * @param directory names the source in error messages
     * @throws CorruptDataException if the bytes are damaged or of a version this build does not read
     */
    static WatchedDirectoryState fromBytes(byte[] bytes, String directory) {
        String what = "the checkpointed state of the file source watching " + directory;
        DataReader in = ChecksummedBytes.open(bytes, VERSION, what);
        int body = in.remaining();
        try {
            int seenCount = in.readVarInt();
            List<String> seen = new ArrayList<>(Math.min(seenCount, body));
            String previous = "";
            for (int i = 0; i < seenCount; i++) {
                int shared = in.readVarInt();
                if (shared > previous.length()) {
                    throw new CorruptDataException("name " + i + " shares " + shared + " chars with a name of "
                            + previous.length());
                }
                previous = previous.substring(0, shared) + in.readString();
                seen.add(previous);
            }
            int splitCount = in.readVarInt();
            List<FileSplit> splits = new ArrayList<>(Math.min(splitCount, body));
            for (int i = 0; i < splitCount; i++) {
                splits.add(FileSplit.SERIALIZER.fromBytes(in.readBytes(in.readVarInt())));
            }
            if (in.hasRemaining()) {
                throw new CorruptDataException(in.remaining() + " bytes left after the last split");
            }
            return new WatchedDirectoryState(seen, splits);
        } catch (CorruptDataException | IllegalArgumentException e) {
            throw new CorruptDataException(what + " is corrupt: " + e.getMessage()
                    + "; restore from another checkpoint", e);
        }
    }


    /** Chars {@code a} and {@code b} share at their start, never ending inside a surrogate pair. */
    private static int sharedPrefix(String a, String b) {
        int max = Math.min(a.length(), b.length());
        int shared = 0;
        while (shared < max && a.charAt(shared) == b.charAt(shared)) {
            shared++;
        }
        if (shared > 0 && Character.isHighSurrogate(a.charAt(shared - 1))) {
            shared--;
        }
        return shared;
    }
}
