package io.duraflow.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;

/** Errors that cross a process boundary or reach a user never read "INTERNAL: null". */
class RpcTest {
    private static NullPointerException bareNullPointer() {
        try {
            // Message-less, like a NullPointerException that a library throws itself.
            throw new NullPointerException();
        } catch (NullPointerException e) {
            return e;
        }
    }

    @Test
    void anExceptionWithoutAMessageIsDescribedByItsTypeAndWhereItWasThrown() {
        String described = Rpc.describe(bareNullPointer());

        assertThat(described).startsWith("java.lang.NullPointerException without a message at ")
                .contains("RpcTest.bareNullPointer(RpcTest.java:").doesNotContain("null\n");
    }

    @Test
    void anErrorWithoutAMessageNamesItsCause() {
        ExceptionInInitializerError error = new ExceptionInInitializerError(
                new IllegalArgumentException("duplicate element: a"));

        assertThat(Rpc.describe(error)).startsWith("java.lang.ExceptionInInitializerError without a message at ")
                .endsWith(", caused by IllegalArgumentException: duplicate element: a");
    }

    @Test
    void aServersInternalErrorCarriesTheExceptionTypeAndMessage() {
        StatusRuntimeException withMessage = Rpc.internalError(new IllegalStateException("slot table full\nmore"));
        StatusRuntimeException without = Rpc.internalError(bareNullPointer());

        assertThat(withMessage.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
        assertThat(withMessage.getStatus().getDescription()).isEqualTo("IllegalStateException: slot table full");
        assertThat(without.getStatus().getDescription()).startsWith("java.lang.NullPointerException without a message at ");
        assertThat(without.getMessage()).doesNotContain("null at").isNotEqualTo("INTERNAL: null");
    }

    @Test
    void aClientSaysWhatAnErrorWithoutDescriptionIs() {
        // What a server without Rpc.internalError sent for an exception without a message.
        StatusRuntimeException literalNull = Status.INTERNAL.withDescription("null").asRuntimeException();
        StatusRuntimeException none = Status.INTERNAL.asRuntimeException();

        assertThat(Rpc.message(literalNull)).isEqualTo("INTERNAL error without a description; the server's log has the cause");
        assertThat(Rpc.message(none)).isEqualTo("INTERNAL error without a description; the server's log has the cause");
        assertThat(Rpc.message(Status.NOT_FOUND.withDescription("no job 'x'").asRuntimeException()))
                .isEqualTo("no job 'x'");
        assertThat(Rpc.message(bareNullPointer())).startsWith("java.lang.NullPointerException without a message at ");
    }
}
