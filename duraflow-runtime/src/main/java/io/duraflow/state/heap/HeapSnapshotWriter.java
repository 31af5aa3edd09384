package io.duraflow.state.heap;

import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.format.KeyedSnapshotFormat;
import io.duraflow.state.format.KeyedSnapshotFormat.Header;
import io.duraflow.state.format.KeyedSnapshotFormat.StateMeta;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The asynchronous part of a heap snapshot: writes what the synchronous part froze (maps of
 * declared states, raw blocks of restored undeclared states, timers of both domains) as one {@link
 * KeyedSnapshotFormat} stream. Runs on a thread other than the task's; reads only frozen maps,
 * which the task never changes again. Interrupting it (cancelling its future) stops it between
 * key groups and deletes what it wrote.
 */
final class HeapSnapshotWriter<K> {
    /** One state of the snapshot. */
    interface Part<K> {
        StateMeta meta();

        /** Writes the block of {@code keyGroup}; false (nothing written) when the state has no entry there. */
        boolean writeBlock(int keyGroup, TypeSerializer<K> keySerializer, DataWriter out);

        /** Freezes a declared state's maps: the synchronous part of its snapshot. */
        static <K, S> Part<K> of(RegisteredState<K, S> state) {
            return new FrozenPart<>(state.meta, state.codec, state.table.freeze(), state.table.firstKeyGroup());
        }
    }

    record FrozenPart<K, S>(StateMeta meta, StateCodec<S> codec, Map<K, S>[] groups, int firstKeyGroup)
            implements Part<K> {
        @Override
        public boolean writeBlock(int keyGroup, TypeSerializer<K> keySerializer, DataWriter out) {
            return RegisteredState.writeBlock(groups[keyGroup - firstKeyGroup], keySerializer, codec, out);
        }
    }

    /** A restored state nobody declared: its blocks go out as they came in. */
    record RawPart<K>(StateMeta meta, int firstKeyGroup, byte[][] blocks) implements Part<K> {
        @Override
        public boolean writeBlock(int keyGroup, TypeSerializer<K> keySerializer, DataWriter out) {
            byte[] block = blocks[keyGroup - firstKeyGroup];
            if (block == null) {
                return false;
            }
            out.writeBytes(block);
            return true;
        }
    }

    private final TypeSerializer<K> keySerializer;
    private final int maxParallelism;
    private final KeyGroupRange keyGroupRange;
    private final List<Part<K>> parts;
    private final Map<HeapTimerService.Timer<K>, Boolean>[] processingTimers;
    private final Map<HeapTimerService.Timer<K>, Boolean>[] eventTimers;
    private final CheckpointStreamFactory streamFactory;

    HeapSnapshotWriter(TypeSerializer<K> keySerializer, int maxParallelism, KeyGroupRange keyGroupRange,
            List<Part<K>> parts, Map<HeapTimerService.Timer<K>, Boolean>[] processingTimers,
            Map<HeapTimerService.Timer<K>, Boolean>[] eventTimers, CheckpointStreamFactory streamFactory) {
        this.keySerializer = keySerializer;
        this.maxParallelism = maxParallelism;
        this.keyGroupRange = keyGroupRange;
        this.parts = List.copyOf(parts);
        this.processingTimers = processingTimers;
        this.eventTimers = eventTimers;
        this.streamFactory = streamFactory;
    }

    List<KeyedStateHandle> write() throws Exception {
        List<StateMeta> metas = new ArrayList<>(parts.size());
        for (Part<K> part : parts) {
            metas.add(part.meta());
        }
        Header header = new Header(keySerializer.description(), maxParallelism, metas);
        try (CheckpointOutputStream out = streamFactory.createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE)) {
            KeyedSnapshotFormat.Writer writer = new KeyedSnapshotFormat.Writer(out, keyGroupRange, header);
            DataWriter block = new DataWriter(16 * 1024);
            for (int keyGroup = keyGroupRange.start(); keyGroup <= keyGroupRange.end(); keyGroup++) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("snapshot of key groups " + keyGroupRange + " cancelled");
                }
                writer.beginKeyGroup(keyGroup);
                for (int i = 0; i < parts.size(); i++) {
                    block.reset();
                    if (parts.get(i).writeBlock(keyGroup, keySerializer, block)) {
                        writer.addBlock(KeyedSnapshotFormat.stateId(i), block.buffer(), 0, block.position());
                    }
                }
                block.reset();
                if (HeapTimerService.writeBlock(processingTimers[keyGroup - keyGroupRange.start()], keySerializer,
                        block)) {
                    writer.addBlock(KeyedSnapshotFormat.PROCESSING_TIMERS_ID, block.buffer(), 0, block.position());
                }
                block.reset();
                if (HeapTimerService.writeBlock(eventTimers[keyGroup - keyGroupRange.start()], keySerializer, block)) {
                    writer.addBlock(KeyedSnapshotFormat.EVENT_TIMERS_ID, block.buffer(), 0, block.position());
                }
                writer.endKeyGroup();
            }
            return List.of(writer.finish());
        }
    }
}
