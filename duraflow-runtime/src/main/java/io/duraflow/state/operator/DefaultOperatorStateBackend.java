package io.duraflow.state.operator;

import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorStateHandle.Distribution;
import io.duraflow.state.backend.IncompatibleStateException;
import io.duraflow.state.backend.OperatorBackendParameters;
import io.duraflow.state.backend.OperatorStateBackend;
import io.duraflow.state.format.OperatorSnapshotFormat;
import io.duraflow.state.format.OperatorSnapshotFormat.ListMeta;
import io.duraflow.state.format.OperatorSnapshotFormat.RestoredList;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;

/**
 * Operator state of one parallel instance as lists in memory, the same for every state backend.
 * Restored elements stay bytes until their list is declared (only then is the serializer known);
 * undeclared restored lists are written into every later snapshot unchanged. The synchronous part
 * of a snapshot copies the lists (elements are not copied: like keyed state values, an element
 * handed to a list must not be mutated afterwards); the asynchronous part serializes and writes
 * them in {@link OperatorSnapshotFormat}. Task thread only, except the snapshot's future.
 */
public final class DefaultOperatorStateBackend implements OperatorStateBackend {
    private record Declared<T>(ListMeta meta, TypeSerializer<T> serializer, ElementList<T> list) {
    }

    /** Elements of a list restored and not declared yet, from every handle, in handle order. */
    private record Restored(ListMeta meta, List<byte[]> elements, String source) {
    }

    private final String operatorDescription;
    private final Map<String, Declared<?>> declared = new TreeMap<>();
    private final Map<String, Restored> restored = new TreeMap<>();
    private boolean disposed;

    private DefaultOperatorStateBackend(String operatorDescription) {
        this.operatorDescription = operatorDescription;
    }

    public static DefaultOperatorStateBackend restore(OperatorBackendParameters parameters) throws IOException {
        DefaultOperatorStateBackend backend = new DefaultOperatorStateBackend(parameters.operatorDescription());
        for (OperatorStateHandle handle : parameters.restoreState()) {
            for (RestoredList list : OperatorSnapshotFormat.read(handle).values()) {
                Restored earlier = backend.restored.get(list.meta().name());
                if (earlier == null) {
                    backend.restored.put(list.meta().name(),
                            new Restored(list.meta(), new ArrayList<>(list.elements()), list.source()));
                } else if (!earlier.meta().equals(list.meta())) {
                    throw new IncompatibleStateException(parameters.operatorDescription() + ": operator state '"
                            + list.meta().name() + "' is " + describe(list.meta()) + " in " + list.source() + " but "
                            + describe(earlier.meta()) + " in " + earlier.source()
                            + "; the restored checkpoint mixes two jobs");
                } else {
                    earlier.elements().addAll(list.elements());
                }
            }
        }
        return backend;
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        return declare(descriptor, Distribution.SPLIT);
    }

    @Override
    public <T> ListState<T> getUnionListState(ListStateDescriptor<T> descriptor) {
        return declare(descriptor, Distribution.UNION);
    }

    @SuppressWarnings("unchecked")
    private <T> ListState<T> declare(ListStateDescriptor<T> descriptor, Distribution distribution) {
        if (disposed) {
            throw new IllegalStateException(operatorDescription + ": the operator state backend was disposed");
        }
        ListMeta meta = new ListMeta(descriptor.name(), distribution, descriptor.elementSerializer().description());
        Declared<?> existing = declared.get(meta.name());
        if (existing != null) {
            if (!existing.meta().equals(meta)) {
                throw new IncompatibleStateException(operatorDescription + ": operator state '" + meta.name()
                        + "' is declared as " + describe(meta) + " but was declared as " + describe(existing.meta())
                        + " before; give one of them another name");
            }
            return (ListState<T>) existing.list();
        }
        ElementList<T> list = new ElementList<>();
        Restored restoredList = restored.get(meta.name());
        if (restoredList != null) {
            if (!restoredList.meta().equals(meta)) {
                throw new IncompatibleStateException(operatorDescription + ": operator state '" + meta.name()
                        + "' was restored as " + describe(restoredList.meta()) + " (from " + restoredList.source()
                        + ") but is now declared as " + describe(meta) + "; declare it as before, or give the new"
                        + " state another name");
            }
            TypeSerializer<T> serializer = descriptor.elementSerializer();
            for (byte[] element : restoredList.elements()) {
                try {
                    DataReader in = new DataReader(element);
                    list.add(serializer.read(in));
                    if (in.hasRemaining()) {
                        throw new CorruptDataException(in.remaining() + " bytes left after the element");
                    }
                } catch (CorruptDataException e) {
                    throw new IncompatibleStateException(operatorDescription + ": an element of operator state '"
                            + meta.name() + "' in " + restoredList.source() + " cannot be read as "
                            + meta.description() + ": " + e.getMessage());
                }
            }
            restored.remove(meta.name());
        }
        declared.put(meta.name(), new Declared<>(meta, descriptor.elementSerializer(), list));
        return list;
    }

    private static String describe(ListMeta meta) {
        return (meta.distribution() == Distribution.SPLIT ? "a split list of " : "a union list of ")
                + meta.description();
    }

    @Override
    public List<String> stateNames() {
        TreeSet<String> names = new TreeSet<>(declared.keySet());
        names.addAll(restored.keySet());
        return List.copyOf(names);
    }

    /** A list as frozen by the synchronous part: typed elements of a declared list, or restored bytes. */
    private record Frozen<T>(ListMeta meta, TypeSerializer<T> serializer, List<T> elements, List<byte[]> raw) {
    }

    @Override
    public RunnableFuture<List<OperatorStateHandle>> snapshot(long checkpointId, long timestamp,
            CheckpointStreamFactory streamFactory) {
        Objects.requireNonNull(streamFactory, "streamFactory");
        List<Frozen<?>> frozen = new ArrayList<>();
        for (Declared<?> list : declared.values()) {
            frozen.add(freeze(list));
        }
        for (Restored list : restored.values()) {
            frozen.add(new Frozen<>(list.meta(), null, List.of(), List.copyOf(list.elements())));
        }
        frozen.sort(java.util.Comparator.comparing(f -> f.meta().name()));
        if (frozen.isEmpty()) {
            FutureTask<List<OperatorStateHandle>> nothing = new FutureTask<>(List::of);
            nothing.run();
            return nothing;
        }
        return new FutureTask<>(() -> write(frozen, streamFactory));
    }

    private static <T> Frozen<T> freeze(Declared<T> list) {
        return new Frozen<>(list.meta(), list.serializer(), List.copyOf(list.list().elements), null);
    }

    private static List<OperatorStateHandle> write(List<Frozen<?>> lists, CheckpointStreamFactory streamFactory)
            throws IOException {
        List<ListMeta> metas = new ArrayList<>();
        for (Frozen<?> list : lists) {
            metas.add(list.meta());
        }
        try (CheckpointOutputStream out = streamFactory.createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE)) {
            OperatorSnapshotFormat.Writer writer = new OperatorSnapshotFormat.Writer(out, metas);
            DataWriter element = new DataWriter();
            for (Frozen<?> list : lists) {
                writeElements(list, writer, element);
            }
            return List.of(writer.finish());
        }
    }

    private static <T> void writeElements(Frozen<T> list, OperatorSnapshotFormat.Writer writer, DataWriter element)
            throws IOException {
        String name = list.meta().name();
        if (list.raw() != null) {
            for (byte[] bytes : list.raw()) {
                writer.writeElement(name, bytes, 0, bytes.length);
            }
            return;
        }
        for (T value : list.elements()) {
            element.reset();
            list.serializer().write(value, element);
            writer.writeElement(name, element.buffer(), 0, element.position());
        }
    }

    @Override
    public void dispose() {
        disposed = true;
        declared.clear();
        restored.clear();
    }

    /** The list behind {@link ListState}: elements in insertion order, no nulls. */
    private static final class ElementList<T> implements ListState<T> {
        private final ArrayList<T> elements = new ArrayList<>();

        @Override
        public Iterable<T> get() {
            return Collections.unmodifiableList(elements);
        }

        @Override
        public void add(T value) {
            elements.add(Objects.requireNonNull(value, "operator state holds no null elements"));
        }

        @Override
        public void addAll(List<T> values) {
            for (T value : values) {
                add(value);
            }
        }

        @Override
        public void update(List<T> values) {
            List<T> replacement = values == null ? List.of() : List.copyOf(values);
            elements.clear();
            elements.addAll(replacement);
        }

        @Override
        public void clear() {
            elements.clear();
        }
    }
}
