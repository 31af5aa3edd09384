package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MemorySizeTest {
    @ParameterizedTest
    @CsvSource({
        "1024, 1024",
        "100 b, 100",
        "100 bytes, 100",
        "512k, 524288",
        "512 kb, 524288",
        "64mb, 67108864",
        "64 MB, 67108864",
        "64 MiB, 67108864",
        "1g, 1073741824",
        "1 GB, 1073741824",
        "2 t, 2199023255552",
        "0, 0",
    })
    void parsesNumbersWithBinaryUnits(String text, long expectedBytes) {
        assertThat(MemorySize.parse(text).bytes()).isEqualTo(expectedBytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "mb", "abc", "1.5 mb", "-1 mb", "64 xb", "64 m b", "9999999999 tb",
        "99999999999999999999"})
    void rejectsMalformedSizes(String text) {
        assertThatThrownBy(() -> MemorySize.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({
        "0, 0 bytes",
        "100, 100 bytes",
        "1024, 1 kb",
        "1536, 1536 bytes",
        "1572864, 1536 kb",
        "67108864, 64 mb",
        "1073741824, 1 gb",
        "1099511627776, 1 tb",
    })
    void printsTheLargestExactUnit(long bytes, String expected) {
        MemorySize size = MemorySize.ofBytes(bytes);
        assertThat(size).hasToString(expected);
        assertThat(MemorySize.parse(size.toString())).isEqualTo(size);
    }

    @Test
    void factoriesAndAccessorsAgree() {
        assertThat(MemorySize.ofMebiBytes(64)).isEqualTo(MemorySize.parse("64 mb"));
        assertThat(MemorySize.ofKibiBytes(3).bytes()).isEqualTo(3072);
        assertThat(MemorySize.ofGibiBytes(1).mebiBytes()).isEqualTo(1024);
        assertThat(MemorySize.ofMebiBytes(1)).isGreaterThan(MemorySize.ofKibiBytes(1023));
    }

    @Test
    void negativeSizesAreRejected() {
        assertThatThrownBy(() -> MemorySize.ofBytes(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
