package io.duraflow.taskmanager.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChainLifecycleTest {
    private static final StreamOperator.OperatorContext CONTEXT = new StreamOperator.OperatorContext("job", 0, 1, 0);

    private final List<String> calls = new ArrayList<>();

    /** A one-input operator that records its lifecycle calls, optionally failing in one of them. */
    private final class Recording implements Downstream {
        final String name;
        final String failIn;

        Recording(String name, String failIn) {
            this.name = name;
            this.failIn = failIn;
        }

        private void call(String hook) throws Exception {
            calls.add(hook + " " + name);
            if (hook.equals(failIn)) {
                throw new IllegalStateException(hook + " of " + name + " failed");
            }
        }

        @Override
        public void push(Object record) {}

        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            assertThat(context.isRestored()).isFalse();
            call("initializeState");
        }

        @Override
        public void open(OperatorContext context) throws Exception {
            assertThat(context).isEqualTo(CONTEXT);
            call("open");
        }

        @Override
        public void endInput() throws Exception {
            call("endInput");
        }

        @Override
        public void close() throws Exception {
            call("close");
        }
    }

    private ChainLifecycle chain(String failingOperator, String failIn) {
        ChainLifecycle lifecycle = new ChainLifecycle();
        for (String name : List.of("a", "b", "c")) {
            lifecycle.add(new Recording(name, name.equals(failingOperator) ? failIn : ""));
        }
        return lifecycle;
    }

    @Test
    void opensTailFirstThenEndsInputAndClosesHeadFirst() throws Exception {
        ChainLifecycle lifecycle = chain("", "");
        lifecycle.open(CONTEXT, operator -> StreamOperator.StateInitializationContext.EMPTY);
        lifecycle.endInput();
        lifecycle.close();
        assertThat(calls).containsExactly(
                "initializeState c", "open c", "initializeState b", "open b", "initializeState a", "open a",
                "endInput a", "endInput b", "endInput c",
                "close a", "close b", "close c");
    }

    @Test
    void aFailureInEndInputStillClosesEveryOperatorOnce() throws Exception {
        ChainLifecycle lifecycle = chain("b", "endInput");
        lifecycle.open(CONTEXT, operator -> StreamOperator.StateInitializationContext.EMPTY);
        assertThatThrownBy(lifecycle::endInput).hasMessage("endInput of b failed");
        lifecycle.close();
        lifecycle.close();
        assertThat(calls).endsWith("endInput a", "endInput b", "close a", "close b", "close c");
    }

    @Test
    void aFailureInOpenStillClosesEveryOperator() throws Exception {
        ChainLifecycle lifecycle = chain("b", "open");
        assertThatThrownBy(() -> lifecycle.open(CONTEXT, operator -> StreamOperator.StateInitializationContext.EMPTY))
                .hasMessage("open of b failed");
        lifecycle.close();
        assertThat(calls).containsExactly("initializeState c", "open c", "initializeState b", "open b",
                "close a", "close b", "close c");
    }

    @Test
    void aFailingCloseDoesNotKeepTheOthersOpenAndReportsEveryFailure() throws Exception {
        ChainLifecycle lifecycle = new ChainLifecycle();
        lifecycle.add(new Recording("a", "close"));
        lifecycle.add(new Recording("b", "close"));
        lifecycle.add(new Recording("c", ""));
        lifecycle.open(CONTEXT, operator -> StreamOperator.StateInitializationContext.EMPTY);
        assertThatThrownBy(lifecycle::close).hasMessage("close of a failed")
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
                        .satisfies(s -> assertThat(s).hasMessage("close of b failed")));
        assertThat(calls).endsWith("close a", "close b", "close c");
    }
}
