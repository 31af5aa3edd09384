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
 * systems round-trip alike.
 */
public final class StateHandleCodec {
    private StateHandleCodec() {
    }

    public static TaskStateSnapshotData toProto(TaskStateSnapshot snapshot) {
        TaskStateSnapshotData.Builder builder = TaskStateSnapshotData.newBuilder();
        new TreeMap<>(snapshot.operators()).forEach((uid, state) -> builder.putOperators(uid, toProto(state)));
        return builder.build();
    }

    public static TaskStateSnapshot fromProto(TaskStateSnapshotData data) {
        Map<String, OperatorSubtaskState> operators = new TreeMap<>();
        data.getOperatorsMap().forEach((uid, state) -> operators.put(uid, fromProto(state)));
        return new TaskStateSnapshot(operators);
    }

    public static OperatorSubtaskStateData toProto(OperatorSubtaskState state) {
        OperatorSubtaskStateData.Builder builder = OperatorSubtaskStateData.newBuilder();
        for (KeyedStateHandle handle : state.keyedState()) {
            builder.addKeyedState(toProto(handle));
        }
        for (OperatorStateHandle handle : state.operatorState()) {
            builder.addOperatorState(toProto(handle));
        }
        return builder.build();
    }

    public static OperatorSubtaskState fromProto(OperatorSubtaskStateData data) {
        List<KeyedStateHandle> keyed = new ArrayList<>();
        for (KeyedStateHandleData handle : data.getKeyedStateList()) {
            keyed.add(fromProto(handle));
        }
        List<OperatorStateHandle> operator = new ArrayList<>();
        for (OperatorStateHandleData handle : data.getOperatorStateList()) {
            operator.add(fromProto(handle));
        }
        return new OperatorSubtaskState(keyed, operator);
    }

    public static KeyedStateHandleData toProto(KeyedStateHandle handle) {
        if (handle instanceof KeyGroupsStateHandle keyGroups) {
            KeyGroupsStateHandleData.Builder builder = KeyGroupsStateHandleData.newBuilder()
                    .setStart(keyGroups.range().start())
                    .setEnd(keyGroups.range().end())
                    .setStream(toProto(keyGroups.stream()));
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
                    .setMetaData(toProto(incremental.metaData()));
            for (IncrementalKeyedStateHandle.SharedFile file : incremental.sharedFiles()) {
                builder.addSharedFiles(IncrementalFileData.newBuilder().setName(file.name())
                        .setStream(toProto(file.handle())).setReused(file.reused()));
            }
            for (IncrementalKeyedStateHandle.PrivateFile file : incremental.privateFiles()) {
                builder.addPrivateFiles(IncrementalFileData.newBuilder().setName(file.name())
                        .setStream(toProto(file.handle())));
            }
            return KeyedStateHandleData.newBuilder().setIncremental(builder).build();
        }
        throw new IllegalArgumentException("no protobuf form for keyed state handle " + handle.getClass().getName());
    }

    public static KeyedStateHandle fromProto(KeyedStateHandleData data) {
        return switch (data.getKindCase()) {
            case KEY_GROUPS -> {
                KeyGroupsStateHandleData keyGroups = data.getKeyGroups();
                long[] offsets = keyGroups.getOffsetsList().stream().mapToLong(Long::longValue).toArray();
                yield new KeyGroupsStateHandle(new KeyGroupRange(keyGroups.getStart(), keyGroups.getEnd()), offsets,
                        fromProto(keyGroups.getStream()));
            }
            case INCREMENTAL -> {
                IncrementalKeyedStateHandleData incremental = data.getIncremental();
                List<IncrementalKeyedStateHandle.SharedFile> shared = new ArrayList<>();
                for (IncrementalFileData file : incremental.getSharedFilesList()) {
                    shared.add(new IncrementalKeyedStateHandle.SharedFile(file.getName(), fromProto(file.getStream()),
                            file.getReused()));
                }
                List<IncrementalKeyedStateHandle.PrivateFile> privateFiles = new ArrayList<>();
                for (IncrementalFileData file : incremental.getPrivateFilesList()) {
                    privateFiles.add(new IncrementalKeyedStateHandle.PrivateFile(file.getName(),
                            fromProto(file.getStream())));
                }
                yield new IncrementalKeyedStateHandle(incremental.getBackendId(), incremental.getCheckpointId(),
                        new KeyGroupRange(incremental.getStart(), incremental.getEnd()), shared, privateFiles,
                        fromProto(incremental.getMetaData()));
            }
            case KIND_NOT_SET -> throw new IllegalArgumentException("keyed state handle of no known kind");
        };
    }

    public static OperatorStateHandleData toProto(OperatorStateHandle handle) {
        OperatorStateHandleData.Builder builder = OperatorStateHandleData.newBuilder().setStream(toProto(handle.stream()));
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
        return new OperatorStateHandle(lists, fromProto(data.getStream()));
    }

    public static StreamStateHandleData toProto(StreamStateHandle handle) {
        if (handle instanceof FileSegmentHandle segment) {
            return StreamStateHandleData.newBuilder()
                    .setFileSegment(FileSegmentData.newBuilder()
                            .setFile(segment.file().toUri().toString())
                            .setOffset(segment.offset())
                            .setLength(segment.length()))
                    .build();
        }
        return StreamStateHandleData.newBuilder()
                .setInlineBytes(ByteString.copyFrom(((InlineStateHandle) handle).bytes()))
                .build();
    }

    public static StreamStateHandle fromProto(StreamStateHandleData data) {
        return switch (data.getKindCase()) {
            case FILE_SEGMENT -> new FileSegmentHandle(FsPath.parse(data.getFileSegment().getFile()),
                    data.getFileSegment().getOffset(), data.getFileSegment().getLength());
            case INLINE_BYTES -> new InlineStateHandle(data.getInlineBytes().toByteArray());
            case KIND_NOT_SET -> throw new IllegalArgumentException("stream state handle of no known kind");
        };
    }
}
