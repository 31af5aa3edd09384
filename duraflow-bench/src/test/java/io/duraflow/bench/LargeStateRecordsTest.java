package io.duraflow.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.bench.LargeStateRecords.Mode;
import java.io.ByteArrayOutputStream;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.junit.jupiter.api.Test;

class LargeStateRecordsTest {
    @Test
    void everyKeyIsWrittenOnceBeforeAnyOtherRecordRule1() {
        Set<Long> written = new HashSet<>();
        for (long g = 0; g < 1_000; g++) {
            assertThat(LargeStateRecords.tag(g, 1_000, 2, Mode.BUILD)).isEqualTo(LargeStateRecords.WRITE);
            assertThat(written.add(LargeStateRecords.key(g, 1_000))).isTrue();
        }
        assertThat(written).hasSize(1_000);
    }

    @Test
    void aBuiltJobSendsIdleRecordsNamingTheirReaderRule2() {
        assertThat(LargeStateRecords.tag(1_000, 1_000, 2, Mode.BUILD)).isEqualTo(LargeStateRecords.IDLE);
        assertThat(LargeStateRecords.tag(1_001, 1_000, 2, Mode.BUILD)).isEqualTo(LargeStateRecords.IDLE + 1);
    }

    @Test
    void aRestoredJobChecksEveryKeyInTurnRule3() {
        Set<Long> checked = new HashSet<>();
        for (long g = 1_000 + 37; g < 2_000 + 37; g++) {
            assertThat(LargeStateRecords.tag(g, 1_000, 2, Mode.RESTORE)).isEqualTo(LargeStateRecords.CHECK);
            checked.add(LargeStateRecords.key(g, 1_000));
        }
        assertThat(checked).hasSize(1_000);
    }

    @Test
    void valuesAreAPureFunctionOfTheKeyAndDoNotCompress() throws Exception {
        assertThat(LargeStateRecords.value(7, 1024)).isEqualTo(LargeStateRecords.value(7, 1024)).hasSize(1024);
        assertThat(LargeStateRecords.value(7, 1024)).isNotEqualTo(LargeStateRecords.value(8, 1024));
        assertThat(LargeStateRecords.matches(7, LargeStateRecords.value(7, 1024), 1024)).isTrue();
        assertThat(LargeStateRecords.matches(7, LargeStateRecords.value(8, 1024), 1024)).isFalse();
        assertThat(LargeStateRecords.matches(7, null, 1024)).isFalse();
        assertThat(LargeStateRecords.value(3, 13)).hasSize(13);

        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (DeflaterOutputStream out = new DeflaterOutputStream(compressed, new Deflater(Deflater.BEST_COMPRESSION))) {
            for (long key = 0; key < 100; key++) {
                out.write(LargeStateRecords.value(key, 1024));
            }
        }
        assertThat(compressed.size()).isGreaterThan(100 * 1024 * 99 / 100);
    }
}
