package io.duraflow.exchange.pipelined;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class NetworkBufferPoolTest {
    private static final int BUFFER = 1024;

    @Test
    void reservedBuffersAreAlwaysThereWhateverOtherPoolsBorrow() {
        NetworkBufferPool global = new NetworkBufferPool(10 * BUFFER, BUFFER);
        LocalBufferPool greedy = global.createLocalPool("greedy", 1, 100, 0);
        LocalBufferPool modest = global.createLocalPool("modest", 2, 2, 0);

        List<NetworkBuffer> taken = new ArrayList<>();
        NetworkBuffer buffer;
        while ((buffer = greedy.requestBuffer()) != null) {
            taken.add(buffer);
        }

        // 10 buffers: 2 reserved by the modest pool, the greedy one gets its own 1 plus the 7 unreserved.
        assertThat(taken).hasSize(8);
        assertThat(modest.requestBuffer()).isNotNull();
        assertThat(modest.requestBuffer()).isNotNull();
        assertThat(modest.requestBuffer()).isNull();
        assertThat(global.bytesInUse()).isEqualTo(10L * BUFFER);
    }

    @Test
    void aReservationThatDoesNotFitFailsNamingTheOption() {
        NetworkBufferPool global = new NetworkBufferPool(4 * BUFFER, BUFFER);
        global.createLocalPool("first", 3, 3, 0);

        assertThatThrownBy(() -> global.createLocalPool("result partition p-2", 2, 2, 0))
                .isInstanceOf(NetworkBufferPool.InsufficientNetworkMemoryException.class)
                .hasMessageContaining("result partition p-2 needs 2")
                .hasMessageContaining("taskmanager.network.memory");
    }

    @Test
    void availabilityCompletesWhenABufferIsRecycled() {
        NetworkBufferPool global = new NetworkBufferPool(8 * BUFFER, BUFFER);
        LocalBufferPool pool = global.createLocalPool("p", 1, 2, 1);
        NetworkBuffer first = pool.requestBuffer();
        NetworkBuffer second = pool.requestBuffer();

        assertThat(pool.requestBuffer()).isNull();
        CompletableFuture<Void> availability = pool.availability();
        assertThat(availability).isNotDone();
        NetworkBuffer overdraft = pool.requestOverdraftBuffer();
        assertThat(overdraft).isNotNull();
        assertThat(pool.requestOverdraftBuffer()).isNull();

        overdraft.recycle();
        assertThat(availability).as("still at the maximum").isNotDone();
        first.recycle();
        assertThat(availability).isDone();
        second.recycle();
        assertThat(global.bytesInUse()).isZero();
    }

    @Test
    void aPoolWaitingForUnreservedMemoryIsWokenWhenAnotherPoolRecycles() {
        NetworkBufferPool global = new NetworkBufferPool(2 * BUFFER, BUFFER);
        LocalBufferPool a = global.createLocalPool("a", 0, 2, 0);
        LocalBufferPool b = global.createLocalPool("b", 0, 2, 0);
        NetworkBuffer a1 = a.requestBuffer();
        NetworkBuffer a2 = a.requestBuffer();

        CompletableFuture<Void> bAvailable = b.availability();
        assertThat(bAvailable).isNotDone();
        a1.recycle();
        assertThat(bAvailable).isDone();
        assertThat(b.requestBuffer()).isNotNull();
        a2.recycle();
    }

    @Test
    void destroyGivesTheReservationBackAndBuffersStillOutReturnWhenRecycled() {
        NetworkBufferPool global = new NetworkBufferPool(4 * BUFFER, BUFFER);
        LocalBufferPool pool = global.createLocalPool("p", 3, 3, 0);
        NetworkBuffer out = pool.requestBuffer();
        assertThat(global.unreservedFreeBuffers()).isEqualTo(1);

        pool.destroy();
        assertThat(global.unreservedFreeBuffers()).isEqualTo(3);
        out.recycle();
        assertThat(global.unreservedFreeBuffers()).isEqualTo(4);
        assertThat(global.bytesInUse()).isZero();
        assertThatThrownBy(pool::requestBuffer).hasMessageContaining("was released");
    }

    @Test
    void recyclingTwiceIsRefused() {
        NetworkBufferPool global = new NetworkBufferPool(2 * BUFFER, BUFFER);
        NetworkBuffer buffer = global.createLocalPool("p", 1, 1, 0).requestBuffer();
        buffer.recycle();
        assertThatThrownBy(buffer::recycle).hasMessageContaining("recycled twice");
    }
}
