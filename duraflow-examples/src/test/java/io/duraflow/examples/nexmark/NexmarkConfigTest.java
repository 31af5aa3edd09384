package io.duraflow.examples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NexmarkConfigTest {
    private static final NexmarkConfig DEFAULTS = NexmarkConfig.defaults();

    @Test
    void defaultsAreNexmarksStandardParameters() {
        assertThat(DEFAULTS.personProportion()).isEqualTo(1);
        assertThat(DEFAULTS.auctionProportion()).isEqualTo(3);
        assertThat(DEFAULTS.bidProportion()).isEqualTo(46);
        assertThat(DEFAULTS.totalProportion()).isEqualTo(50);
        assertThat(DEFAULTS.categories()).isEqualTo(5);
        assertThat(DEFAULTS.hotAuctionRatio()).isEqualTo(2);
        assertThat(DEFAULTS.hotSellerRatio()).isEqualTo(4);
        assertThat(DEFAULTS.hotBidderRatio()).isEqualTo(4);
        assertThat(DEFAULTS.activePeople()).isEqualTo(1000);
        assertThat(DEFAULTS.inFlightAuctions()).isEqualTo(100);
        assertThat(DEFAULTS.avgPersonBytes()).isEqualTo(200);
        assertThat(DEFAULTS.avgAuctionBytes()).isEqualTo(500);
        assertThat(DEFAULTS.avgBidBytes()).isEqualTo(100);
        assertThat(DEFAULTS.eventsPerSecond()).isEqualTo(10_000_000L);
        assertThat(Instant.ofEpochMilli(DEFAULTS.firstEventTimeMs())).isEqualTo(Instant.parse("2015-07-15T00:00:00Z"));
        assertThat(DEFAULTS.maxOutOfOrdernessMs()).isZero();
        assertThat(NexmarkConfig.FIRST_PERSON_ID).isEqualTo(1000);
        assertThat(NexmarkConfig.FIRST_AUCTION_ID).isEqualTo(1000);
        assertThat(NexmarkConfig.FIRST_CATEGORY_ID).isEqualTo(10);
    }

    @Test
    void eachWithMethodChangesOnlyItsParameters() {
        NexmarkConfig changed = DEFAULTS.withProportions(2, 5, 0).withCategories(7).withHotRatios(3, 5, 6)
                .withActivePeople(10).withInFlightAuctions(20).withAvgBytes(1, 2, 3).withEventsPerSecond(1000)
                .withFirstEventTimeMs(42).withMaxOutOfOrdernessMs(9);
        assertThat(changed).isEqualTo(new NexmarkConfig(2, 5, 0, 7, 3, 5, 6, 10, 20, 1, 2, 3, 1000, 42, 9));
        assertThat(DEFAULTS.withMaxOutOfOrdernessMs(5)).isEqualTo(new NexmarkConfig(1, 3, 46, 5, 2, 4, 4, 1000, 100,
                200, 500, 100, 10_000_000L, NexmarkConfig.DEFAULT_FIRST_EVENT_TIME_MS, 5));
    }

    static Stream<Arguments> invalidConfigs() {
        return Stream.of(
                invalid(() -> DEFAULTS.withProportions(0, 3, 46), "nexmark personProportion must be at least 1, got 0"),
                invalid(() -> DEFAULTS.withProportions(1, 0, 46),
                        "nexmark auctionProportion must be at least 1, got 0"),
                invalid(() -> DEFAULTS.withProportions(1, 3, -1), "nexmark bidProportion must be at least 0, got -1"),
                invalid(() -> DEFAULTS.withProportions(1, 3, Integer.MAX_VALUE),
                        "nexmark proportions must add up to at most 2147483647, got 2147483651"),
                invalid(() -> DEFAULTS.withCategories(0), "nexmark categories must be at least 1, got 0"),
                invalid(() -> DEFAULTS.withHotRatios(0, 4, 4), "nexmark hotAuctionRatio must be at least 1, got 0"),
                invalid(() -> DEFAULTS.withHotRatios(2, 0, 4), "nexmark hotSellerRatio must be at least 1, got 0"),
                invalid(() -> DEFAULTS.withHotRatios(2, 4, -3), "nexmark hotBidderRatio must be at least 1, got -3"),
                invalid(() -> DEFAULTS.withActivePeople(0), "nexmark activePeople must be at least 1, got 0"),
                invalid(() -> DEFAULTS.withInFlightAuctions(0), "nexmark inFlightAuctions must be at least 1, got 0"),
                invalid(() -> DEFAULTS.withAvgBytes(-1, 500, 100),
                        "nexmark avgPersonBytes must be between 0 and 65536, got -1"),
                invalid(() -> DEFAULTS.withAvgBytes(200, 65537, 100),
                        "nexmark avgAuctionBytes must be between 0 and 65536, got 65537"),
                invalid(() -> DEFAULTS.withAvgBytes(200, 500, -5),
                        "nexmark avgBidBytes must be between 0 and 65536, got -5"),
                invalid(() -> DEFAULTS.withEventsPerSecond(0),
                        "nexmark eventsPerSecond must be between 1 and 1000000000, got 0"),
                invalid(() -> DEFAULTS.withEventsPerSecond(1_000_000_001L),
                        "nexmark eventsPerSecond must be between 1 and 1000000000, got 1000000001"),
                invalid(() -> DEFAULTS.withFirstEventTimeMs(-1), "nexmark firstEventTimeMs must be at least 0, got -1"),
                invalid(() -> DEFAULTS.withMaxOutOfOrdernessMs(-1),
                        "nexmark maxOutOfOrdernessMs must be between 0 and 31536000000, got -1"),
                invalid(() -> DEFAULTS.withMaxOutOfOrdernessMs(NexmarkConfig.MAX_OUT_OF_ORDERNESS_MS + 1),
                        "nexmark maxOutOfOrdernessMs must be between 0 and 31536000000, got 31536000001"));
    }

    @ParameterizedTest
    @MethodSource("invalidConfigs")
    void invalidParametersAreRejectedWithOneLineNamingTheParameter(Supplier<NexmarkConfig> config, String message) {
        assertThatThrownBy(config::get).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void theLimitsThemselvesAreAccepted() {
        NexmarkConfig extreme = DEFAULTS.withProportions(1, 1, 0).withAvgBytes(0, NexmarkConfig.MAX_AVG_EVENT_BYTES, 0)
                .withEventsPerSecond(NexmarkConfig.MAX_EVENTS_PER_SECOND).withFirstEventTimeMs(0)
                .withMaxOutOfOrdernessMs(NexmarkConfig.MAX_OUT_OF_ORDERNESS_MS).withHotRatios(1, 1, 1);
        assertThat(extreme.totalProportion()).isEqualTo(2);
    }

    private static Arguments invalid(Supplier<NexmarkConfig> config, String message) {
        return Arguments.of(config, message);
    }
}
