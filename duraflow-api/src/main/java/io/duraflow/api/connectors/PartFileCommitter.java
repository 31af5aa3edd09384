package io.duraflow.api.connectors;

import io.duraflow.api.sink.Committer;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.channels.FileChannel;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Commits {@link PendingPart}s by atomic rename; idempotent and safe to run in several subtasks at once. */
final class PartFileCommitter implements Committer<PendingPart> {
    @Override
    public void commit(List<PendingPart> parts) throws IOException {
        Set<Path> renamedIn = new LinkedHashSet<>();
        for (PendingPart part : parts) {
            Path inProgress = Path.of(part.inProgressPath());
            Path target = Path.of(part.finalPath());
            try {
                Files.move(inProgress, target, StandardCopyOption.ATOMIC_MOVE);
                renamedIn.add(target.getParent());
            } catch (NoSuchFileException e) {
                // A rename is atomic: the in-progress file is gone only if the part was committed
                // (by an earlier attempt, or by another subtask right now), unless someone removed it.
                if (!Files.exists(target)) {
                    FileNotFoundException lost = new FileNotFoundException("cannot commit part file " + target
                            + ": neither it nor its in-progress file " + inProgress + " exists; committed parts"
                            + " must stay in place until a later checkpoint completed, else their records are lost");
                    lost.initCause(e);
                    throw lost;
                }
            }
        }
        for (Path directory : renamedIn) {
            // The rename is in the directory's entries: make it survive a machine crash too.
            try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
                dir.force(true);
            }
        }
    }
}
