package io.duraflow.jobmanager.jobmaster.execution;

import static io.duraflow.jobmanager.jobmaster.execution.ExecutionState.CANCELED;
import static io.duraflow.jobmanager.jobmaster.execution.ExecutionState.CANCELING;
import static io.duraflow.jobmanager.jobmaster.execution.ExecutionState.CREATED;
import static io.duraflow.jobmanager.jobmaster.execution.ExecutionState.DEPLOYING;
import static io.duraflow.jobmanager.jobmaster.execution.ExecutionState.FAILED;
import static io.duraflow.jobmanager.jobmaster.execution.ExecutionState.FINISHED;
import static io.duraflow.jobmanager.jobmaster.execution.ExecutionState.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The transition table of one attempt, checked through {@link Execution#transition}. */
class ExecutionStateTest {
    /** The legal moves, written out independently of the enum's own table. */
    private static final Map<ExecutionState, Set<ExecutionState>> LEGAL = Map.of(
            CREATED, EnumSet.of(DEPLOYING, CANCELED),
            DEPLOYING, EnumSet.of(RUNNING, FINISHED, FAILED, CANCELING, CANCELED),
            RUNNING, EnumSet.of(FINISHED, FAILED, CANCELING, CANCELED),
            CANCELING, EnumSet.of(CANCELED, FAILED, FINISHED),
            FINISHED, EnumSet.noneOf(ExecutionState.class),
            FAILED, EnumSet.noneOf(ExecutionState.class),
            CANCELED, EnumSet.noneOf(ExecutionState.class));

    /** A fresh execution brought to {@code state} by legal moves. */
    private static Execution in(ExecutionState state) {
        Execution execution = new Execution("job-1", 0, 0);
        List<ExecutionState> path = switch (state) {
            case CREATED -> List.of();
            case DEPLOYING -> List.of(DEPLOYING);
            case RUNNING -> List.of(DEPLOYING, RUNNING);
            case FINISHED -> List.of(DEPLOYING, RUNNING, FINISHED);
            case FAILED -> List.of(DEPLOYING, FAILED);
            case CANCELING -> List.of(DEPLOYING, RUNNING, CANCELING);
            case CANCELED -> List.of(DEPLOYING, CANCELING, CANCELED);
        };
        path.forEach(next -> execution.transition(next, "test"));
        assertThat(execution.state()).isEqualTo(state);
        return execution;
    }

    @Test
    void theTableAllowsExactlyTheDocumentedMoves() {
        for (ExecutionState from : ExecutionState.values()) {
            for (ExecutionState to : ExecutionState.values()) {
                assertThat(from.canMoveTo(to)).as("%s -> %s", from, to).isEqualTo(LEGAL.get(from).contains(to));
            }
        }
    }

    @Test
    void everyLegalMoveIsTaken() {
        for (ExecutionState from : ExecutionState.values()) {
            for (ExecutionState to : LEGAL.get(from)) {
                Execution execution = in(from);
                execution.transition(to, "test");
                assertThat(execution.state()).as("%s -> %s", from, to).isEqualTo(to);
            }
        }
    }

    @Test
    void everyIllegalMoveThrowsNamingBothStates() {
        int illegal = 0;
        for (ExecutionState from : ExecutionState.values()) {
            for (ExecutionState to : EnumSet.complementOf(EnumSet.copyOf(LEGAL.get(from)))) {
                Execution execution = in(from);
                assertThatThrownBy(() -> execution.transition(to, "because the test says so"))
                        .as("%s -> %s", from, to)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("from " + from + " to " + to)
                        .hasMessageContaining("because the test says so");
                assertThat(execution.state()).as("state after the refused move %s -> %s", from, to).isEqualTo(from);
                illegal++;
            }
        }
        assertThat(illegal).isEqualTo(49 - 14);
    }

    @Test
    void onlyDeployingRunningAndCancelingHoldASlot() {
        assertThat(EnumSet.allOf(ExecutionState.class).stream().filter(ExecutionState::isActive))
                .containsExactlyInAnyOrder(DEPLOYING, RUNNING, CANCELING);
        assertThat(EnumSet.allOf(ExecutionState.class).stream().filter(ExecutionState::isTerminal))
                .containsExactlyInAnyOrder(FINISHED, FAILED, CANCELED);
    }

    @Test
    void anAttemptThatEndedIsReplacedByTheNextAttemptButAnActiveOneIsNot() {
        for (ExecutionState ended : List.of(FINISHED, FAILED, CANCELED)) {
            Execution execution = in(ended);
            execution.reset(1_234, "test");
            assertThat(execution.state()).isEqualTo(CREATED);
            assertThat(execution.attempt()).isEqualTo(1);
            assertThat(execution.notBeforeMs()).isEqualTo(1_234);
            assertThat(execution.partitionId(0)).isEqualTo("job-1-v0-s0-a1-e0");
        }
        for (ExecutionState active : List.of(DEPLOYING, RUNNING, CANCELING)) {
            Execution execution = in(active);
            assertThatThrownBy(() -> execution.reset(0, "test")).as("reset in %s", active)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining(active.name());
            assertThat(execution.attempt()).isZero();
        }
    }
}
