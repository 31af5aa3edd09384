package io.duraflow.taskmanager.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.NonRetriableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/** Which task failures a restart cannot fix ({@link Task#isNonRetriable}). */
class TaskFailureClassificationTest {
    @Test
    void aNonRetriableExceptionAnywhereInTheCauseChainIsNotRetried() {
        assertThat(Task.isNonRetriable(new NonRetriableException("bad input line 7"))).isTrue();
        assertThat(Task.isNonRetriable(new RuntimeException("operator failed",
                new IllegalStateException("wrapped", new NonRetriableException("budget too small"))))).isTrue();
    }

    @Test
    void classpathErrorsAreNotRetried() {
        assertThat(Task.isNonRetriable(new NoClassDefFoundError("com/acme/Udf"))).isTrue();
        assertThat(Task.isNonRetriable(new ExceptionInInitializerError("static init failed"))).isTrue();
        assertThat(Task.isNonRetriable(new RuntimeException(new ClassNotFoundException("com.acme.Udf")))).isTrue();
    }

    @Test
    void everythingElseMayPassOnAnotherTry() {
        assertThat(Task.isNonRetriable(new UncheckedIOException(new IOException("connection reset")))).isFalse();
        assertThat(Task.isNonRetriable(new OutOfMemoryError("Java heap space"))).isFalse();
        assertThat(Task.isNonRetriable(new IllegalStateException("boom"))).isFalse();
    }
}
