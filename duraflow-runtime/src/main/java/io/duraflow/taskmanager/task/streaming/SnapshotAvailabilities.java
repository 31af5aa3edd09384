package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.checkpoint.SnapshotAvailability;
import java.util.ArrayList;
import java.util.List;

/**
 * One task's answer to "can you take your part of this checkpoint now?" from its operators'
 * answers: the strongest wins, so a soft "not now" of one operator never hides a hard "this is
 * wrong" of another. Hard over soft over available; the message names every refusal, those of the
 * winning kind first, so the checkpoint history shows them all.
 */
final class SnapshotAvailabilities {
    private SnapshotAvailabilities() {}

    /** @param answers in chain order (head first), none null */
    static SnapshotAvailability strongest(List<SnapshotAvailability> answers) {
        List<String> hard = new ArrayList<>();
        List<String> soft = new ArrayList<>();
        for (SnapshotAvailability answer : answers) {
            switch (answer.kind()) {
                case HARD_FAILURE -> hard.add(answer.message());
                case SOFT_FAILURE -> soft.add(answer.message());
                case AVAILABLE -> { }
            }
        }
        if (hard.isEmpty()) {
            return soft.isEmpty() ? SnapshotAvailability.available()
                    : SnapshotAvailability.softFailure(String.join("; ", soft));
        }
        return SnapshotAvailability.hardFailure(String.join("; ", hard)
                + (soft.isEmpty() ? "" : "; also not now: " + String.join("; ", soft)));
    }
}
