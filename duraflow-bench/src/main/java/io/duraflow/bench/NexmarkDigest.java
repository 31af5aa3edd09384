package io.duraflow.bench;

import io.duraflow.examples.nexmark.Bid;
import io.duraflow.examples.nexmark.JoinQueries;
import io.duraflow.examples.nexmark.NexmarkExpected;
import io.duraflow.examples.nexmark.WindowQueries;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Nexmark run's results reduced to what both engines and {@link NexmarkExpected} can compute
 * the same way without shipping the results anywhere: how many there are and the sum, modulo
 * 2^64, of a 64-bit hash of each. The sum does not depend on the order the results arrive in, so
 * it stands for the sorted list of result lines; two runs agree when both figures do.
 *
 * <p>Results are Duraflow's result records on both sides (the Flink jobs emit the same records):
 * {@link Bid} (q0, q1), a pair (auction, price) (q2; {@link #pair}), {@link
 * JoinQueries.LocalItem} (q3), {@link JoinQueries.CategoryAverage} (q4), {@link
 * WindowQueries.HotItem} (q5), {@link WindowQueries.HighestBid} (q7), {@link JoinQueries.NewSeller}
 * (q8), {@link WindowQueries.BidderSession} (q11). The hash of a result mixes its components in
 * declaration order: numbers as they are, strings by {@link String#hashCode()} (specified by the
 * JDK, so the same in every JVM), the q4 average by its IEEE bits.
 *
 * <p>q4 emits a category's running average every time one of its auctions closes, and the order
 * in which auctions of different subtasks reach a category differs between runs; only each
 * category's final average (the one over most auctions) is deterministic, so an accumulator of
 * q4 keeps that one per category and digests those. Each category's averages come out of one
 * subtask (the sink follows the keyed operator at the same parallelism on both engines), so
 * summing the subtasks' digests stays right; were it not so, the count would not match.
 */
public final class NexmarkDigest {
    private NexmarkDigest() {}

    /** The digest of a run: {@code results} results whose hashes add up to {@code hashSum}. */
    public record Digest(long results, long hashSum) {
        public static final Digest EMPTY = new Digest(0, 0);

        public Digest plus(Digest other) {
            return new Digest(results + other.results, hashSum + other.hashSum);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%,d results, hash %016x", results, hashSum);
        }
    }

    /** The hash of a q2 result, (auction, price), whatever type of pair an engine uses. */
    public static long pair(long auction, long price) {
        return finish(mix(mix(SEED, auction), price));
    }

    /** The hash of one result; see the class comment for the types. */
    public static long hash(Object result) {
        long h = SEED;
        if (result instanceof Bid bid) {
            h = mix(mix(mix(mix(mix(mix(mix(h, bid.auction()), bid.bidder()), bid.price()), bid.channel().hashCode()),
                    bid.url().hashCode()), bid.dateTime()), bid.extra().hashCode());
        } else if (result instanceof io.duraflow.api.types.Tuple2<?, ?> pair) {
            return pair((Long) pair.f0(), (Long) pair.f1());
        } else if (result instanceof JoinQueries.LocalItem item) {
            h = mix(mix(mix(mix(h, item.name().hashCode()), item.city().hashCode()), item.state().hashCode()),
                    item.auction());
        } else if (result instanceof JoinQueries.CategoryAverage average) {
            h = mix(mix(mix(mix(h, average.category()), average.auctions()), average.sumOfFinalPrices()),
                    Double.doubleToLongBits(average.average()));
        } else if (result instanceof WindowQueries.HotItem item) {
            h = mix(mix(mix(h, item.auction()), item.bids()), item.windowEnd());
        } else if (result instanceof WindowQueries.HighestBid bid) {
            h = mix(mix(mix(mix(mix(h, bid.windowEnd()), bid.auction()), bid.bidder()), bid.price()), bid.dateTime());
        } else if (result instanceof JoinQueries.NewSeller seller) {
            h = mix(mix(mix(h, seller.person()), seller.name().hashCode()), seller.windowStart());
        } else if (result instanceof WindowQueries.BidderSession session) {
            h = mix(mix(mix(mix(h, session.bidder()), session.bids()), session.start()), session.end());
        } else {
            throw new IllegalArgumentException("not a Nexmark result: " + result);
        }
        return finish(h);
    }

    /** The digest of results computed directly, for checking runs. */
    public static Digest of(Collection<?> results) {
        long sum = 0;
        for (Object result : results) {
            sum += hash(result);
        }
        return new Digest(results.size(), sum);
    }

    /** What a correct run of {@code query} digests to. */
    public static Digest expected(NexmarkExpected expected, String query, Duration window, Duration slide,
            Duration gap) {
        return switch (query) {
            case "q0" -> of(expected.bids());
            case "q1" -> {
                long sum = 0;
                for (Bid bid : expected.bids()) {
                    sum += hash(new Bid(bid.auction(), bid.bidder(),
                            io.duraflow.examples.nexmark.NexmarkQueries.toEuroCents(bid.price()), bid.channel(),
                            bid.url(), bid.dateTime(), bid.extra()));
                }
                yield new Digest(expected.bids().size(), sum);
            }
            case "q2" -> {
                long count = 0;
                long sum = 0;
                for (Bid bid : expected.bids()) {
                    if (bid.auction() % io.duraflow.examples.nexmark.NexmarkQueries.Q2_AUCTION_MODULUS == 0) {
                        count++;
                        sum += pair(bid.auction(), bid.price());
                    }
                }
                yield new Digest(count, sum);
            }
            case "q3" -> of(expected.q3());
            case "q4" -> of(expected.q4().values());
            case "q5" -> of(expected.q5(window, slide));
            case "q7" -> of(expected.q7(window));
            case "q8" -> of(expected.q8(window));
            case "q11" -> of(expected.q11(gap));
            default -> throw new IllegalArgumentException("unknown Nexmark query '" + query + "'");
        };
    }

    /**
     * Digests one subtask's results as they come; not thread-safe (one per sink writer). Notes
     * the wall-clock time of the first and the last result.
     */
    public static final class Accumulator {
        private final boolean finalPerCategory;
        private final Map<Long, JoinQueries.CategoryAverage> lastPerCategory = new HashMap<>();
        private long results;
        private long hashSum;
        private long firstResultAtMs;
        private long lastResultAtMs;

        /** An accumulator for {@code query}'s results (q4: the final average per category). */
        public Accumulator(String query) {
            this.finalPerCategory = query.equals("q4");
        }

        public void add(Object result) {
            note();
            if (finalPerCategory) {
                JoinQueries.CategoryAverage average = (JoinQueries.CategoryAverage) result;
                lastPerCategory.merge(average.category(), average, (a, b) -> a.auctions() >= b.auctions() ? a : b);
            } else {
                results++;
                hashSum += hash(result);
            }
        }

        /** Adds a q2 result given as its two numbers. */
        public void addPair(long auction, long price) {
            note();
            results++;
            hashSum += pair(auction, price);
        }

        private void note() {
            long now = System.currentTimeMillis();
            if (firstResultAtMs == 0) {
                firstResultAtMs = now;
            }
            lastResultAtMs = now;
        }

        public Digest digest() {
            return finalPerCategory ? of(List.copyOf(lastPerCategory.values())) : new Digest(results, hashSum);
        }

        /** Wall clock of the first result, epoch ms; 0 without results. */
        public long firstResultAtMs() {
            return firstResultAtMs;
        }

        /** Wall clock of the last result, epoch ms; 0 without results. */
        public long lastResultAtMs() {
            return lastResultAtMs;
        }
    }

    private static final long SEED = 0x4e65786d61726b44L;

    private static long mix(long h, long value) {
        return Long.rotateLeft((h ^ value) * 0x9E3779B97F4A7C15L, 31);
    }

    /** MurmurHash3's 64-bit finalizer, so that sums of hashes of similar results do not cancel out. */
    private static long finish(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb53a4a5c0d4bL;
        return h ^ (h >>> 33);
    }
}
