package io.duraflow.state.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.heap.HeapStateBackend;
import io.duraflow.state.rocksdb.RocksDBStateBackend;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Part of the keyed backend contract ({@link KeyedStateBackendContractTest}): processing-time and
 * event-time timers fire in order with their key current, stay independent of each other, survive
 * every snapshot type, move between backend kinds in a savepoint, and are read from a version 1
 * snapshot.
 */
public interface KeyedStateTimersContract extends KeyedStateBackendFixture {
    // ---- timers --------------------------------------------------------------------------

    @Test
    default void timersFireInTimeOrderOncePerKeyAndTimeWithTheirKeyCurrent() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        InternalTimerService<Long> timers = backend.timerService();
        assertThat(timers.nextTimerTime()).isEqualTo(InternalTimerService.NO_TIMER);
        timers.registerTimer(1L, 30);
        timers.registerTimer(2L, 10);
        timers.registerTimer(2L, 10);
        timers.registerTimer(3L, 20);
        timers.registerTimer(3L, 40);
        timers.deleteTimer(3L, 40);
        timers.deleteTimer(3L, 99);
        assertThat(timers.size()).isEqualTo(3);
        assertThat(timers.nextTimerTime()).isEqualTo(10);

        List<String> fired = new ArrayList<>();
        int count = timers.fireUpTo(25, (key, time) -> {
            assertThat(backend.currentKey()).isEqualTo(key);
            fired.add(key + "@" + time);
            if (key == 2L && time == 10) {
                timers.registerTimer(2L, 15);
                timers.registerTimer(2L, 50);
            }
        });

        assertThat(fired).containsExactly("2@10", "2@15", "3@20");
        assertThat(count).isEqualTo(3);
        assertThat(timers.nextTimerTime()).isEqualTo(30);
        assertThat(timers.size()).isEqualTo(2);
        timers.deleteTimer(1L, 30);
        assertThat(timers.nextTimerTime()).isEqualTo(50);
    }

    @Test
    default void timersSurviveSnapshotAndRestore() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 500; key++) {
            backend.timerService().registerTimer(key, 1000 - key);
            backend.timerService().registerTimer(key, 2000);
        }
        backend.timerService().deleteTimer(7L, 2000);

        KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend));

        assertThat(restored.timerService().size()).isEqualTo(999);
        assertThat(restored.timerService().nextTimerTime()).isEqualTo(501);
        List<String> fired = new ArrayList<>();
        restored.timerService().fireUpTo(3000, (key, time) -> fired.add(key + "@" + time));
        assertThat(fired).hasSize(999).startsWith("499@501", "498@502").doesNotContain("7@2000").contains("8@2000");
    }

    @Test
    default void timersAloneAreSnapshotted() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        backend.timerService().registerTimer(42L, 5);

        KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend));

        assertThat(restored.timerService().nextTimerTime()).isEqualTo(5);
    }

    // ---- event-time timers ---------------------------------------------------------------

    @Test
    default void eventTimersFireInTimeOrderOncePerKeyAndTimeWithTheirKeyCurrent() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        InternalTimerService<Long> timers = backend.eventTimerService();
        assertThat(timers.nextTimerTime()).isEqualTo(InternalTimerService.NO_TIMER);
        timers.registerTimer(1L, 30);
        timers.registerTimer(2L, 10);
        timers.registerTimer(2L, 10);
        timers.registerTimer(3L, 20);
        timers.registerTimer(3L, 40);
        timers.registerTimer(4L, Long.MIN_VALUE);
        timers.deleteTimer(3L, 40);
        timers.deleteTimer(3L, 99);
        assertThat(timers.size()).isEqualTo(4);
        assertThat(timers.nextTimerTime()).isEqualTo(Long.MIN_VALUE);

        List<String> fired = new ArrayList<>();
        int count = timers.fireUpTo(25, (key, time) -> {
            assertThat(backend.currentKey()).isEqualTo(key);
            fired.add(key + "@" + time);
            if (key == 2L && time == 10) {
                timers.registerTimer(2L, 15);
                timers.registerTimer(2L, 25);
                timers.registerTimer(2L, 50);
                timers.registerTimer(5L, 5);
            }
        });

        assertThat(fired).containsExactly("4@" + Long.MIN_VALUE, "2@10", "5@5", "2@15", "3@20", "2@25");
        assertThat(count).isEqualTo(6);
        assertThat(timers.nextTimerTime()).isEqualTo(30);
        assertThat(timers.size()).isEqualTo(2);
        timers.deleteTimer(1L, 30);
        assertThat(timers.nextTimerTime()).isEqualTo(50);
        assertThat(timers.fireUpTo(Long.MAX_VALUE, (key, time) -> fired.add(key + "@" + time))).isEqualTo(1);
        assertThat(fired).endsWith("2@50");
        assertThat(timers.size()).isZero();
        assertThat(backend.timerService().size()).as("processing-time timers").isZero();
    }

    @Test
    default void theTwoTimerDomainsAreIndependentAlsoThroughSnapshots() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        backend.timerService().registerTimer(1L, 10);
        backend.eventTimerService().registerTimer(1L, 10);
        backend.eventTimerService().registerTimer(2L, 20);
        assertThat(backend.timerService().size()).isEqualTo(1);
        assertThat(backend.eventTimerService().size()).isEqualTo(2);
        backend.timerService().deleteTimer(2L, 20);
        assertThat(backend.eventTimerService().size()).as("deleting in the other domain").isEqualTo(2);

        for (SnapshotType type : SnapshotType.values()) {
            KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend, type, true));

            assertThat(firedAll(restored.timerService())).as("%s", type).containsExactly("1@10");
            assertThat(firedAll(restored.eventTimerService())).as("%s", type).containsExactly("1@10", "2@20");
        }
        backend.eventTimerService().deleteTimer(1L, 10);
        assertThat(backend.timerService().nextTimerTime()).isEqualTo(10);
        assertThat(firedAll(backend.eventTimerService())).containsExactly("2@20");
        assertThat(firedAll(backend.timerService())).containsExactly("1@10");
    }

    /** Fires every timer of {@code timers}, as "key@time" in firing order. */
    private static List<String> firedAll(InternalTimerService<Long> timers) throws Exception {
        List<String> fired = new ArrayList<>();
        timers.fireUpTo(Long.MAX_VALUE, (key, time) -> fired.add(key + "@" + time));
        return fired;
    }

    @Test
    default void eventTimersSurviveEverySnapshotTypeAndLaterIncrementalOnes() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 500; key++) {
            backend.eventTimerService().registerTimer(key, 1000 - key);
            backend.eventTimerService().registerTimer(key, 2000);
        }
        backend.eventTimerService().deleteTimer(7L, 2000);

        for (SnapshotType type : SnapshotType.values()) {
            KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend, type, true));

            assertThat(restored.eventTimerService().size()).as("%s", type).isEqualTo(999);
            assertThat(restored.eventTimerService().nextTimerTime()).isEqualTo(501);
            assertThat(restored.timerService().size()).isZero();
        }
        // a checkpoint after changes (incremental where the backend has them) holds the changes
        backend.eventTimerService().fireUpTo(600, (key, time) -> { });
        backend.eventTimerService().registerTimer(9999L, 3000);
        KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend));
        List<String> fired = firedAll(restored.eventTimerService());
        assertThat(fired).hasSize(400 + 499 + 1).startsWith("399@601", "398@602").doesNotContain("7@2000")
                .contains("8@2000").endsWith("9999@3000");
    }

    @Test
    default void eventTimersAloneAreSnapshotted() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        backend.eventTimerService().registerTimer(42L, 5);

        KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend));

        assertThat(restored.eventTimerService().nextTimerTime()).isEqualTo(5);
        assertThat(restored.timerService().nextTimerTime()).isEqualTo(InternalTimerService.NO_TIMER);
    }

    @Test
    default void aSavepointMovesTimersOfBothDomainsToEitherBackendAndBack() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 300; key++) {
            fill(backend, key);
            backend.timerService().registerTimer(key, 100 + key);
            backend.eventTimerService().registerTimer(key, 1000 + key);
        }
        for (StateBackend other : List.of(new HeapStateBackend(), new RocksDBStateBackend(new Configuration()))) {
            KeyedStateBackend<Long> there = backend(other, Types.LONG, ALL,
                    snapshot(backend, SnapshotType.SAVEPOINT, true));
            there.eventTimerService().registerTimer(1000L, 7);
            KeyedStateBackend<Long> back = restored(ALL, snapshot(there, SnapshotType.SAVEPOINT, true));

            for (long key = 0; key < 300; key++) {
                assertThat(dump(back, key)).as("%s, key %d", other.name(), key).isEqualTo(dump(backend, key));
            }
            List<String> processing = firedAll(back.timerService());
            List<String> event = firedAll(back.eventTimerService());
            assertThat(processing).as(other.name()).hasSize(300).startsWith("0@100").endsWith("299@399");
            assertThat(event).as(other.name()).hasSize(301).startsWith("1000@7", "0@1000").endsWith("299@1299");
        }
    }

    @Test
    default void aVersionOneSnapshotRestoresItsTimersAsProcessingTimeTimersAndNoEventTimers() throws Exception {
        ValueStateDescriptor<Long> count = new ValueStateDescriptor<>("count", Types.LONG);
        long key = 7;
        int keyGroup = keyGroupOf(key);
        KeyedStateBackend<Long> backend = restored(ALL, List.of(versionOneSnapshot(keyGroup)));

        backend.setCurrentKey(key);
        assertThat(backend.getState(count).value()).isEqualTo(9L);
        assertThat(firedAll(backend.timerService())).containsExactly("7@1000");
        assertThat(backend.eventTimerService().size()).isZero();
    }

    /**
     * A one-key-group stream as version 1 of the canonical format wrote it: value state "count" of
     * long, key 7 with value 9 and a timer (id 0) at 1000 (see checkpoint-files.md).
     */
    private static io.duraflow.state.KeyGroupsStateHandle versionOneSnapshot(int keyGroup) {
        DataWriter body = new DataWriter();
        body.writeString("long");
        body.writeVarInt(MAX_PARALLELISM);
        body.writeVarInt(1);
        body.writeString("count");
        body.writeByte(1);
        body.writeString("value(long)");
        DataWriter payload = new DataWriter();
        payload.writeVarInt(1); // state 1 in version 1
        payload.writeVarInt(3);
        payload.writeVarInt(1);
        Types.LONG.write(7L, payload);
        Types.LONG.write(9L, payload);
        payload.writeVarInt(0); // timers
        payload.writeVarInt(10);
        payload.writeVarInt(1);
        Types.LONG.write(7L, payload);
        payload.writeLong(1000);
        DataWriter stream = new DataWriter();
        stream.writeInt(0x44464B53);
        stream.writeInt(1);
        stream.writeInt(body.position());
        stream.writeBytes(body.buffer(), 0, body.position());
        stream.writeInt(crc32c(body));
        long offset = stream.position();
        stream.writeInt(keyGroup);
        stream.writeInt(payload.position());
        stream.writeInt(crc32c(payload));
        stream.writeBytes(payload.buffer(), 0, payload.position());
        return new io.duraflow.state.KeyGroupsStateHandle(new KeyGroupRange(keyGroup, keyGroup), new long[] {offset},
                new io.duraflow.state.InlineStateHandle(stream.toByteArray()));
    }

    private static int crc32c(DataWriter bytes) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(bytes.buffer(), 0, bytes.position());
        return (int) crc.getValue();
    }
}
