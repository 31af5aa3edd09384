package io.duraflow.exchange.blocking;

import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.exchange.PartitionNotFoundException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What happens to a TaskManager's partitions when its JobManager is lost: kept for the retention
 * timeout with batch job recovery, for a new leader to take over; released otherwise.
 */
class TaskManagerPartitionsTest {
    private static final long RETENTION_MS = 10_000;

    @TempDir
    Path dir;

    private final ManualMailbox mailbox = ManualMailbox.guardingMailsOnly();
    private final AtomicBoolean registered = new AtomicBoolean();

    private TaskManagerPartitions partitions(boolean retain) throws Exception {
        TaskManagerPartitions partitions = new TaskManagerPartitions("tm-1", mailbox, dir, 1024, retain, RETENTION_MS);
        try (PartitionFileWriter writer = partitions.create("job", "p1", 1)) {
            writer.write(0, new byte[] {1, 2, 3}, 0, 3);
            writer.finish();
        }
        partitions.publish("job", "p1");
        return partitions;
    }

    /** How a release was answered. */
    /** What the TaskExecutor answers the JobManager's release request with. */
    static final class Answer {
        String outcome = "none";
    }

    private static void release(TaskManagerPartitions partitions, String jobId, List<String> partitionIds,
            boolean onlyKept, Answer answer) {
        try {
            partitions.release(jobId, partitionIds, onlyKept);
            answer.outcome = "ok";
        } catch (java.io.IOException e) {
            answer.outcome = "INTERNAL: " + e.getMessage();
        }
    }

    private boolean lost(TaskManagerPartitions partitions) {
        boolean[] kept = new boolean[1];
        mailbox.execute(() -> kept[0] = partitions.keepForNextLeader(registered::get));
        mailbox.runDue();
        return kept[0];
    }

    private static boolean served(TaskManagerPartitions partitions) throws Exception {
        try (PartitionFileReader reader = partitions.open("p1")) {
            return true;
        } catch (PartitionNotFoundException e) {
            return false;
        }
    }

    @Test
    void withoutBatchJobRecoveryALostJobManagerTakesThePartitionsAlong() throws Exception {
        TaskManagerPartitions partitions = partitions(false);

        assertThat(lost(partitions)).isFalse();

        assertThat(served(partitions)).isFalse();
        assertThat(partitions.size()).isZero();
    }

    @Test
    void keptPartitionsGoWhenNoLeaderRegisteredThisTaskManagerInTime() throws Exception {
        TaskManagerPartitions partitions = partitions(true);

        assertThat(lost(partitions)).isTrue();
        mailbox.advance(RETENTION_MS - 1);
        assertThat(served(partitions)).as("within the retention timeout").isTrue();
        mailbox.advance(1);

        assertThat(served(partitions)).isFalse();
    }

    @Test
    void aLeaderThatTookThemOverKeepsThemPastTheTimeout() throws Exception {
        TaskManagerPartitions partitions = partitions(true);
        assertThat(lost(partitions)).isTrue();

        RegisterTaskManagerRequest.Builder registration = RegisterTaskManagerRequest.newBuilder();
        mailbox.execute(() -> {
            partitions.describeHeld(registration);
            partitions.takenOver();
        });
        mailbox.advance(RETENTION_MS * 2);

        assertThat(registration.getHeldPartitionsList()).extracting(held -> held.getPartitionId())
                .containsExactly("p1");
        assertThat(served(partitions)).isTrue();
        // Taken over, they count as kept: the new leader releases those it does not need.
        mailbox.execute(() -> release(partitions, "job", List.of(), true, new Answer()));
        mailbox.runDue();
        assertThat(served(partitions)).isFalse();
    }

    @Test
    void aSecondLossRestartsTheRetentionTimeout() throws Exception {
        TaskManagerPartitions partitions = partitions(true);
        assertThat(lost(partitions)).isTrue();
        mailbox.advance(RETENTION_MS / 2);

        assertThat(lost(partitions)).isTrue();
        mailbox.advance(RETENTION_MS - 1);
        assertThat(served(partitions)).as("the first loss's timeout was called off").isTrue();
        mailbox.advance(1);

        assertThat(served(partitions)).isFalse();
    }

    @Test
    void registeredAgainByTheTimeTheRetentionEndsKeepsThem() throws Exception {
        TaskManagerPartitions partitions = partitions(true);
        assertThat(lost(partitions)).isTrue();

        registered.set(true);
        mailbox.advance(RETENTION_MS);

        assertThat(served(partitions)).isTrue();
    }

    /** The release of a job's partitions is answered only once its files are gone (a cleanup step waits for it). */
    @Test
    void theReleaseOfAJobIsConfirmedOnceItsFilesAreDeleted() throws Exception {
        TaskManagerPartitions partitions = partitions(false);
        Answer answer = new Answer();

        mailbox.execute(() -> release(partitions, "job", List.of(), false, answer));
        mailbox.runDue();

        assertThat(answer.outcome).isEqualTo("ok");
        assertThat(served(partitions)).isFalse();
        assertThat(dir.resolve("partitions").resolve("job")).doesNotExist();
        Answer again = new Answer();
        mailbox.execute(() -> release(partitions, "job", List.of(), false, again));
        mailbox.runDue();
        assertThat(again.outcome).as("releasing again is a no-op").isEqualTo("ok");
    }

    @Test
    void aReleaseThatCannotDeleteAFileIsRefusedNamingIt() throws Exception {
        PartitionStore store = new PartitionStore(dir, path -> {
            throw new java.nio.file.AccessDeniedException(path.toString());
        });
        TaskManagerPartitions partitions = new TaskManagerPartitions("tm-1", mailbox, store, 1024, false,
                RETENTION_MS);
        try (PartitionFileWriter writer = partitions.create("job", "p1", 1)) {
            writer.finish();
        }
        Answer answer = new Answer();

        mailbox.execute(() -> release(partitions, "job", List.of(), false, answer));
        mailbox.runDue();

        assertThat(answer.outcome).startsWith("INTERNAL: TaskManager tm-1 could not delete the partitions of job job")
                .contains("p1.");
    }

    @Test
    void keepingAndReleasingRunOnlyInTheMailbox() throws Exception {
        TaskManagerPartitions partitions = partitions(true);

        assertThatThrownBy(() -> partitions.keepForNextLeader(registered::get))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("mailbox");
        assertThatThrownBy(() -> release(partitions, "job", List.of(), false, new Answer()))
                .isInstanceOf(IllegalStateException.class);
        assertThat(served(partitions)).isTrue();
    }

    @Test
    void aPartitionNotPublishedHereIsNotFoundNamingThisTaskManager() throws Exception {
        TaskManagerPartitions partitions = partitions(true);

        assertThatThrownBy(() -> partitions.open("p2")).isInstanceOf(PartitionNotFoundException.class)
                .hasMessageContaining("p2").hasMessageContaining("tm-1");
    }
}
