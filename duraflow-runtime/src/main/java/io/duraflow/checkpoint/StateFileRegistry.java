package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.StreamStateHandle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JobMaster's shared-state registry: which retained or pending checkpoints refer to which state
 * files, so a file is deleted exactly when the last checkpoint that uses it is dropped. On the
 * coordinator's main thread; a pure function of the calls made. Its rules, numbered as tests and
 * code refer to them: see docs/design/checkpoint-cleanup.md#statefileregistry.
 */
public final class StateFileRegistry {
    private final CheckpointDirectories directories;
    private final FsPath jobDirectory;
    private final FsPath taskOwnedDirectory;
    private final Map<FsPath, Set<Long>> users = new HashMap<>();
    private final Map<Long, Set<FsPath>> filesOf = new HashMap<>();
    private final Set<FsPath> claimed = new HashSet<>();
    private final Set<FsPath> adopted = new HashSet<>();
    /** Rule 7: the checkpoints that name each file-merging directory, and the reverse. */
    private final Map<FsPath, Set<Long>> directoryUsers = new HashMap<>();
    private final Map<Long, Set<FsPath>> directoriesOf = new HashMap<>();

    public StateFileRegistry(CheckpointDirectories directories) {
        this.directories = directories;
        this.jobDirectory = directories.jobDirectory();
        this.taskOwnedDirectory = directories.taskOwned();
    }

    /**
     * Rule 1: checkpoint {@code checkpointId} refers to {@code files} (in addition to what it
     * referred to), and so names the file-merging directories they lie in (rule 7).
     */
    public void register(long checkpointId, Collection<FsPath> files) {
        List<FsPath> inDirectories = new ArrayList<>();
        for (FsPath file : files) {
            users.computeIfAbsent(file, f -> new HashSet<>()).add(checkpointId);
            filesOf.computeIfAbsent(checkpointId, id -> new HashSet<>()).add(file);
            FsPath directory = directories.fileMergingDirectoryOf(file);
            if (directory != null) {
                inDirectories.add(directory);
            }
        }
        name(checkpointId, inDirectories);
    }

    /** Rule 7: checkpoint {@code checkpointId} names these file-merging directories (those of another job are ignored). */
    public void name(long checkpointId, Collection<FsPath> fileMergingDirectories) {
        for (FsPath directory : fileMergingDirectories) {
            if (directories.isFileMergingDirectory(directory)) {
                directoryUsers.computeIfAbsent(directory, d -> new HashSet<>()).add(checkpointId);
                directoriesOf.computeIfAbsent(checkpointId, id -> new HashSet<>()).add(directory);
            }
        }
    }

    /**
     * Rule 7: releases completed checkpoint {@code checkpointId} (subsumed, or dropped when the job
     * ends): the owned files and the file-merging directories nobody uses any more, each sorted.
     */
    public Released releaseSubsumed(long checkpointId) {
        List<FsPath> unusedDirectories = dropNames(checkpointId);
        return new Released(releaseFiles(checkpointId), unusedDirectories);
    }

    /** Drops the directories checkpoint {@code checkpointId} names; those nobody names any more, sorted. */
    private List<FsPath> dropNames(long checkpointId) {
        Set<FsPath> named = directoriesOf.remove(checkpointId);
        List<FsPath> unnamed = new ArrayList<>();
        if (named != null) {
            for (FsPath directory : named) {
                Set<Long> ids = directoryUsers.get(directory);
                ids.remove(checkpointId);
                if (ids.isEmpty()) {
                    directoryUsers.remove(directory);
                    unnamed.add(directory);
                }
            }
        }
        unnamed.sort(Comparator.comparing(FsPath::toString));
        return unnamed;
    }

    /**
     * @param files owned files no retained or pending checkpoint refers to
     * @param directories file-merging directories no retained or pending checkpoint names
     */
    public record Released(List<FsPath> files, List<FsPath> directories) {
        public Released {
            files = List.copyOf(files);
            directories = List.copyOf(directories);
        }
    }

    /** Whether a retained or pending checkpoint names {@code directory} (rule 7). */
    public boolean isNamed(FsPath directory) {
        return directoryUsers.containsKey(directory);
    }

    /**
     * Rule 3: the job restored, so no writer is left for {@code files} (listed in its file-merging
     * directories before the restore drew a new checkpoint id): they become the job's, deleted
     * when no checkpoint refers to them.
     */
    public void adopt(Collection<FsPath> files) {
        for (FsPath file : files) {
            if (directories.fileMergingDirectoryOf(file) != null) {
                adopted.add(file);
            }
        }
    }

    /**
     * Rule 2: drops checkpoint {@code checkpointId}'s references (and the directories it names,
     * which never go with it here: rule 7); the owned files nobody uses any more, sorted.
     */
    public List<FsPath> release(long checkpointId) {
        dropNames(checkpointId);
        return releaseFiles(checkpointId);
    }

    private List<FsPath> releaseFiles(long checkpointId) {
        Set<FsPath> files = filesOf.remove(checkpointId);
        if (files == null) {
            return List.of();
        }
        List<FsPath> unused = new ArrayList<>();
        for (FsPath file : files) {
            Set<Long> ids = users.get(file);
            ids.remove(checkpointId);
            if (ids.isEmpty()) {
                users.remove(file);
                if (isOwned(file)) {
                    unused.add(file);
                }
                claimed.remove(file);
                adopted.remove(file);
            }
        }
        unused.sort(Comparator.comparing(FsPath::toString));
        return unused;
    }

    /** Rule 3: the job takes over {@code files} (a checkpoint restored with {@code --claim}): they go when unused. */
    public void claim(Collection<FsPath> files) {
        claimed.addAll(files);
    }

    /** Rule 4: those of {@code files} no retained or pending checkpoint refers to, sorted. */
    public List<FsPath> unknown(Collection<FsPath> files) {
        List<FsPath> unknown = new ArrayList<>();
        for (FsPath file : files) {
            if (!users.containsKey(file)) {
                unknown.add(file);
            }
        }
        unknown.sort(Comparator.comparing(FsPath::toString));
        return unknown;
    }

    /** Rule 5: every retained checkpoint refers to exactly the files of its metadata. */
    public void rebuild(List<CompletedCheckpoint> retained) {
        for (CompletedCheckpoint checkpoint : retained) {
            release(checkpoint.checkpointId());
            register(checkpoint.checkpointId(), filesOf(checkpoint));
            name(checkpoint.checkpointId(), checkpoint.fileMergingDirectories());
        }
    }

    /** Rule 3: {@code files} are deleted: they need no adoption any more. */
    public void forgetAdopted(Collection<FsPath> files) {
        adopted.removeAll(files);
    }

    /** Rule 6: those of {@code listed} that the job owns and nobody refers to, sorted. */
    public List<FsPath> unreferencedOwned(Collection<FsPath> listed) {
        List<FsPath> orphans = new ArrayList<>();
        for (FsPath file : listed) {
            if (!users.containsKey(file) && isOwned(file)) {
                orphans.add(file);
            }
        }
        orphans.sort(Comparator.comparing(FsPath::toString));
        return orphans;
    }

    /** The files a retained or pending checkpoint refers to (a view). */
    public Set<FsPath> referenced() {
        return java.util.Collections.unmodifiableSet(users.keySet());
    }

    public boolean isReferenced(FsPath file) {
        return users.containsKey(file);
    }

    /** How many checkpoints refer to {@code file}. */
    public int references(FsPath file) {
        Set<Long> ids = users.get(file);
        return ids == null ? 0 : ids.size();
    }

    public int referencedFiles() {
        return users.size();
    }

    /** Rule 3: under the job's directory, not under {@code taskowned/} nor in a file-merging directory; or claimed or adopted. */
    public boolean isOwned(FsPath file) {
        if (claimed.contains(file) || adopted.contains(file)) {
            return true;
        }
        return CheckpointFileCleaner.isUnder(file, jobDirectory) && !CheckpointFileCleaner.isUnder(file, taskOwnedDirectory)
                && directories.fileMergingDirectoryOf(file) == null;
    }

    /** Every file a completed checkpoint points to, its metadata excluded. */
    public static Set<FsPath> filesOf(CompletedCheckpoint checkpoint) {
        Set<FsPath> files = new HashSet<>();
        for (OperatorCheckpointState operator : checkpoint.operators().values()) {
            for (OperatorSubtaskState state : operator.subtasks().values()) {
                for (KeyedStateHandle handle : state.keyedState()) {
                    for (StreamStateHandle stream : handle.streams()) {
                        addFile(stream, files);
                    }
                }
                for (OperatorStateHandle handle : state.operatorState()) {
                    addFile(handle.stream(), files);
                }
            }
        }
        return files;
    }

    private static void addFile(StreamStateHandle handle, Set<FsPath> files) {
        if (handle instanceof FileSegmentHandle segment) {
            files.add(segment.file());
        }
    }
}
