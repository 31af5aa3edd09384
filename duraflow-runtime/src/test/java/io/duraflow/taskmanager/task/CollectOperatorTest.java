package io.duraflow.taskmanager.task;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.NonRetriableException;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import org.junit.jupiter.api.Test;

class CollectOperatorTest {
    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void aResultBeyondTheLimitFailsTheJobAtOnce() throws Exception {
        var collect = new ChainedOperators.CollectOperator("words", (TypeSerializer) Types.STRING, 100,
                new TaskCounters());
        collect.push("x".repeat(50));
        assertThatThrownBy(() -> collect.push("y".repeat(60))).isInstanceOf(NonRetriableException.class)
                .hasMessageContaining("collect.max-bytes (100 bytes)");
    }
}
