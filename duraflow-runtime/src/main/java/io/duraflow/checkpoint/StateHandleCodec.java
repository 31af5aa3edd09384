package io.duraflow.checkpoint;

import com.google.protobuf.ByteString;
import io.duraflow.fs.FsPath;
import io.duraflow.rpc.proto.FileSegmentData;
import io.duraflow.rpc.proto.IncrementalFileData;
import io.duraflow.rpc.proto.IncrementalKeyedStateHandleData;
import io.duraflow.rpc.proto.KeyGroupsStateHandleData;
import io.duraflow.rpc.proto.KeyedStateHandleData;
import io.duraflow.rpc.proto.NamedStateListData;
import io.duraflow.rpc.proto.OperatorStateHandleData;
import io.duraflow.rpc.proto.OperatorSubtaskStateData;
import io.duraflow.rpc.proto.StateListDistribution;
import io.duraflow.rpc.proto.StreamStateHandleData;
import io.duraflow.rpc.proto.TaskStateSnapshotData;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.TaskStateSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Converts the state handle records of {@code io.duraflow.state} to and from their protobuf
 * messages ({@code *Data} in duraflow.proto): used by the checkpoint {@code _metadata} and by a
 * task's acknowledgement RPC, so the two never disagree on what a handle is.
 *
 * <p>Decoding checks what the records check (ranges, offsets per key group) and throws {@link
 * IllegalArgumentException} with the reason; callers that read a file wrap it in an error that
 * names the file. A file path travels as a URI ({@code file:///...}), so local and remote file
 * systems round-trip alike; only in a {@code _metadata} (given its directory as the base) is a
 * file inside that directory recorded relative to it ({@code relative_file}), so a savepoint,
 * whose files are all inside its directory, can be moved and still be read.
 */
public final class StateHandleCodec {
    private StateHandleCodec() {
    }

    public static TaskStateSnapshotData toProto(TaskStateSnapshot snapshot) {
        TaskStateSnapshotData.Builder builder = TaskStateSnapshotData.newBuilder();
        new TreeMap<>(snapshot.operators()).forEach((uid, state) -> builder.putOperators(uid, toProto(state)));
        snapshot.fileMergingDirectories().stream().map(FsPath::toString).sorted()
                .forEach(builder::addFileMergingDirectories);
        return builder.build();
    }

    public static TaskStateSnapshot fromProto(TaskStateSnapshotData data) {
        Map<String, OperatorSubtaskState> operators = new TreeMap<>();
        data.getOperatorsMap().forEach((uid, state) -> operators.put(uid, fromProto(state)));
        java.util.Set<FsPath> directories = new java.util.HashSet<>();
        for (String directory : data.getFileMergingDirectoriesList()) {
            directories.add(FsPath.parse(directory));
        }
        return new TaskStateSnapshot(operators, directories);
    }

    public static OperatorSubtaskStateData toProto(OperatorSubtaskState state) {
        return toProto(state, null);
    }

    /**
     * @param base the directory of the {@code _metadata} being written: files inside it are recorded
     *     relative to it; null: every file as a URI (acknowledgements, deployments)
     */
    public static OperatorSubtaskStateData toProto(OperatorSubtaskState state, FsPath base) {
        OperatorSubtaskStateData.Builder builder = OperatorSubtaskStateData.newBuilder();
        for (KeyedStateHandle handle : state.keyedState()) {
            builder.addKeyedState(toProto(handle, base));
        }
        for (OperatorStateHandle handle : state.operatorState()) {
            builder.addOperatorState(toProto(handle, base));
        }
        return builder.build();
    }

    public static OperatorSubtaskState fromProto(OperatorSubtaskStateData data) {
        return fromProto(data, null);
    }

    /**
     * @param base the directory of the {@code _metadata} being read, against which relative files
     *     resolve; null: a relative file is an error (it only belongs in a {@code _metadata})
     */
    public static OperatorSubtaskState fromProto(OperatorSubtaskStateData data, FsPath base) {
        List<KeyedStateHandle> keyed = new ArrayList<>();
        for (KeyedStateHandleData handle : data.getKeyedStateList()) {
            keyed.add(fromProto(handle, base));
        }
        List<OperatorStateHandle> operator = new ArrayList<>();
        for (OperatorStateHandleData handle : data.getOperatorStateList()) {
            operator.add(fromProto(handle, base));
        }
        return new OperatorSubtaskState(keyed, operator);
    }

    public static KeyedStateHandleData toProto(KeyedStateHandle handle) {
        return toProto(handle, null);
    }

    private static KeyedStateHandleData toProto(KeyedStateHandle handle, FsPath base) {
        if (handle instanceof KeyGroupsStateHandle keyGroups) {
            KeyGroupsStateHandleData.Builder builder = KeyGroupsStateHandleData.newBuilder()
                    .setStart(keyGroups.range().start())
                    .setEnd(keyGroups.range().end())
                    .setStream(toProto(keyGroups.stream(), base));
            for (long offset : keyGroups.offsets()) {
                builder.addOffsets(offset);
            }
            return KeyedStateHandleData.newBuilder().setKeyGroups(builder).build();
        }
        if (handle instanceof IncrementalKeyedStateHandle incremental) {
            IncrementalKeyedStateHandleData.Builder builder = IncrementalKeyedStateHandleData.newBuilder()
                    .setBackendId(incremental.backendId())
                    .setCheckpointId(incremental.checkpointId())
                    .setStart(incremental.keyGroupRange().start())
                    .setEnd(incremental.keyGroupRange().end())
                    .setMetaData(toProto(incremental.metaData(), base));
            for (IncrementalKeyedStateHandle.SharedFile file : incremental.sharedFiles()) {
                builder.addSharedFiles(IncrementalFileData.newBuilder().setName(file.name())
                        .setStream(toProto(file.handle(), base)).setReused(file.reused()));
            }
            for (IncrementalKeyedStateHandle.PrivateFile file : incremental.privateFiles()) {
                builder.addPrivateFiles(IncrementalFileData.newBuilder().setName(file.name())
                        .setStream(toProto(file.handle(), base)));
            }
            return KeyedStateHandleData.newBuilder().setIncremental(builder).build();
        }
        throw new IllegalArgumentException("no protobuf form for keyed state handle " + handle.getClass().getName());
    }

    public static KeyedStateHandle fromProto(KeyedStateHandleData data) {
        return fromProto(data, null);
    }

    private static KeyedStateHandle fromProto(KeyedStateHandleData data, FsPath base) {
        return switch (data.getKindCase()) {
            case KEY_GROUPS -> {
                KeyGroupsStateHandleData keyGroups = data.getKeyGroups();
                long[] offsets = keyGroups.getOffsetsList().stream().mapToLong(Long::longValue).toArray();
                yield new KeyGroupsStateHandle(new KeyGroupRange(keyGroups.getStart(), keyGroups.getEnd()), offsets,
                        fromProto(keyGroups.getStream(), base));
            }
            case INCREMENTAL -> {
                IncrementalKeyedStateHandleData incremental = data.getIncremental();
                List<IncrementalKeyedStateHandle.SharedFile> shared = new ArrayList<>();
                for (IncrementalFileData file : incremental.getSharedFilesList()) {
                    shared.add(new IncrementalKeyedStateHandle.SharedFile(file.getName(),
                            fromProto(file.getStream(), base), file.getReused()));
                }
                List<IncrementalKeyedStateHandle.PrivateFile> privateFiles = new ArrayList<>();
                for (IncrementalFileData file : incremental.getPrivateFilesList()) {
                    privateFiles.add(new IncrementalKeyedStateHandle.PrivateFile(file.getName(),
                            fromProto(file.getStream(), base)));
                }
                yield new IncrementalKeyedStateHandle(incremental.getBackendId(), incremental.getCheckpointId(),
                        new KeyGroupRange(incremental.getStart(), incremental.getEnd()), shared, privateFiles,
                        fromProto(incremental.getMetaData(), base));
            }
            case KIND_NOT_SET -> throw new IllegalArgumentException("keyed state handle of no known kind");
        };
    }

    public static OperatorStateHandleData toProto(OperatorStateHandle handle) {
        return toProto(handle, null);
    }

    private static OperatorStateHandleData toProto(OperatorStateHandle handle, FsPath base) {
        OperatorStateHandleData.Builder builder = OperatorStateHandleData.newBuilder()
                .setStream(toProto(handle.stream(), base));
        new TreeMap<>(handle.lists()).forEach((name, list) -> {
            NamedStateListData.Builder named = NamedStateListData.newBuilder()
                    .setName(name)
                    .setDistribution(switch (list.distribution()) {
                        case SPLIT -> StateListDistribution.STATE_LIST_SPLIT;
                        case UNION -> StateListDistribution.STATE_LIST_UNION;
                    });
            for (long offset : list.elementOffsets()) {
                named.addElementOffsets(offset);
            }
            builder.addLists(named);
        });
        return builder.build();
    }

    public static OperatorStateHandle fromProto(OperatorStateHandleData data) {
        return fromProto(data, null);
    }

    private static OperatorStateHandle fromProto(OperatorStateHandleData data, FsPath base) {
        Map<String, OperatorStateHandle.StateList> lists = new TreeMap<>();
        for (NamedStateListData named : data.getListsList()) {
            OperatorStateHandle.Distribution distribution = switch (named.getDistribution()) {
                case STATE_LIST_SPLIT -> OperatorStateHandle.Distribution.SPLIT;
                case STATE_LIST_UNION -> OperatorStateHandle.Distribution.UNION;
                default -> throw new IllegalArgumentException("state list '" + named.getName()
                        + "' has no known distribution: " + named.getDistribution());
            };
            long[] offsets = named.getElementOffsetsList().stream().mapToLong(Long::longValue).toArray();
            if (lists.put(named.getName(), new OperatorStateHandle.StateList(distribution, offsets)) != null) {
                throw new IllegalArgumentException("state list '" + named.getName() + "' appears twice");
            }
        }
        return new OperatorStateHandle(lists, fromProto(data.getStream(), base));
    }

    public static StreamStateHandleData toProto(StreamStateHandle handle) {
        return toProto(handle, null);
    }

    private static StreamStateHandleData toProto(StreamStateHandle handle, FsPath base) {
        if (handle instanceof FileSegmentHandle segment) {
            FileSegmentData.Builder file = FileSegmentData.newBuilder()
                    .setOffset(segment.offset())
                    .setLength(segment.length());
            String relative = base == null ? null : relativeTo(base, segment.file());
            if (relative != null) {
                file.setRelativeFile(relative);
            } else {
                file.setFile(segment.file().toUri().toString());
            }
            return StreamStateHandleData.newBuilder().setFileSegment(file).build();
        }
        return StreamStateHandleData.newBuilder()
                .setInlineBytes(ByteString.copyFrom(((InlineStateHandle) handle).bytes()))
                .build();
    }

    public static StreamStateHandle fromProto(StreamStateHandleData data) {
        return fromProto(data, null);
    }

    private static StreamStateHandle fromProto(StreamStateHandleData data, FsPath base) {
        return switch (data.getKindCase()) {
            case FILE_SEGMENT -> new FileSegmentHandle(file(data.getFileSegment(), base),
                    data.getFileSegment().getOffset(), data.getFileSegment().getLength());
            case INLINE_BYTES -> new InlineStateHandle(data.getInlineBytes().toByteArray());
            case KIND_NOT_SET -> throw new IllegalArgumentException("stream state handle of no known kind");
        };
    }

    /** The path of {@code file} below {@code base} ({@code "a/b"}), or null if it is not inside it. */
    static String relativeTo(FsPath base, FsPath file) {
        if (!base.scheme().equals(file.scheme()) || !java.util.Objects.equals(base.authority(), file.authority())) {
            return null;
        }
        String prefix = base.path().equals("/") ? "/" : base.path() + "/";
        return file.path().startsWith(prefix) && file.path().length() > prefix.length()
                ? file.path().substring(prefix.length()) : null;
    }

    private static FsPath file(FileSegmentData segment, FsPath base) {
        boolean relative = !segment.getRelativeFile().isEmpty();
        if (relative == !segment.getFile().isEmpty()) {
            throw new IllegalArgumentException("a file segment names its file " + (relative ? "twice" : "not at all")
                    + ": file '" + segment.getFile() + "', relative file '" + segment.getRelativeFile() + "'");
        }
        if (!relative) {
            return FsPath.parse(segment.getFile());
        }
        if (base == null) {
            throw new IllegalArgumentException("relative file '" + segment.getRelativeFile()
                    + "' outside a _metadata file, which alone may name files relative to its directory");
        }
        return base.resolve(segment.getRelativeFile());
    }
}
