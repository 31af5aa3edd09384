package io.duraflow.examples.nexmark;

import io.duraflow.api.windowing.TimeWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The results of the Nexmark queries over events {@code 0 .. events - 1}, computed directly over
 * all the events at once, with plain collections and no engine: what a run of {@link
 * NexmarkQueries} must produce. Tests and benchmarks check runs against it.
 */
public final class NexmarkExpected {
    private final List<Person> persons = new ArrayList<>();
    private final List<Auction> auctions = new ArrayList<>();
    private final List<Bid> bids = new ArrayList<>();

    public NexmarkExpected(NexmarkConfig config, long events) {
        NexmarkGenerator generator = new NexmarkGenerator(config);
        for (long n = 0; n < events; n++) {
            Event event = generator.event(n);
            if (event.person() != null) {
                persons.add(event.person());
            } else if (event.auction() != null) {
                auctions.add(event.auction());
            } else {
                bids.add(event.bid());
            }
        }
    }

    public List<Bid> bids() {
        return bids;
    }

    /**
     * The results of q3, q4, q5, q7, q8 or q11 as the lines {@link NexmarkQueries} writes (the
     * records' {@code toString}), sorted; for q4, whose job emits an updated average per closed
     * auction, each category's final average.
     */
    public List<String> lines(String query, Duration window, Duration slide, Duration gap) {
        List<?> results = switch (query) {
            case "q3" -> q3();
            case "q4" -> List.copyOf(q4().values());
            case "q5" -> q5(window, slide);
            case "q7" -> q7(window);
            case "q8" -> q8(window);
            case "q11" -> q11(gap);
            default -> throw new IllegalArgumentException("no expected lines for Nexmark query '" + query + "'");
        };
        return results.stream().map(String::valueOf).sorted().toList();
    }

    /**
     * The lines a run of {@link NexmarkQueries} wrote, comparable with {@link #lines}: sorted, and
     * for q4, whose job emits an updated average per closed auction, each category's last update,
     * after checking that its updates count its auctions 1, 2, ... once each (exactly once).
     *
     * @throws IllegalStateException naming the category whose updates are missing or repeated
     */
    public static List<String> comparable(String query, List<String> written) {
        if (!query.equals("q4")) {
            return written.stream().sorted().toList();
        }
        Map<String, List<Long>> counts = new TreeMap<>();
        Map<String, String> last = new TreeMap<>();
        for (String line : written) {
            String category = line.substring(0, line.indexOf(','));
            counts.computeIfAbsent(category, k -> new ArrayList<>()).add(auctionsOf(line));
            last.merge(category, line, (a, b) -> auctionsOf(a) >= auctionsOf(b) ? a : b);
        }
        counts.forEach((category, seen) -> {
            List<Long> sorted = seen.stream().sorted().toList();
            for (int i = 0; i < sorted.size(); i++) {
                if (sorted.get(i) != i + 1) {
                    throw new IllegalStateException(category + ": its updates count " + sorted
                            + ", not each closed auction once");
                }
            }
        });
        return last.values().stream().sorted().toList();
    }

    private static long auctionsOf(String q4Line) {
        return Long.parseLong(q4Line.substring(q4Line.indexOf("auctions=") + 9, q4Line.indexOf(", sumOf")));
    }

    /** q3: every auction of category 10 whose seller lives in OR, ID or CA, with the seller. */
    public List<JoinQueries.LocalItem> q3() {
        Map<Long, Person> byId = new HashMap<>();
        persons.forEach(person -> byId.put(person.id(), person));
        List<JoinQueries.LocalItem> items = new ArrayList<>();
        for (Auction auction : auctions) {
            Person seller = byId.get(auction.seller());
            if (auction.category() == JoinQueries.Q3_CATEGORY && seller != null
                    && JoinQueries.Q3_STATES.contains(seller.state())) {
                items.add(new JoinQueries.LocalItem(seller.name(), seller.city(), seller.state(), auction.id()));
            }
        }
        return items;
    }

    /**
     * q4: per category, the count and sum of the final prices of its auctions (the highest bid
     * between an auction's start and expiry; auctions without such a bid have none).
     */
    public Map<Long, JoinQueries.CategoryAverage> q4() {
        Map<Long, Long> highest = new HashMap<>();
        Map<Long, Auction> byId = new HashMap<>();
        auctions.forEach(auction -> byId.put(auction.id(), auction));
        for (Bid bid : bids) {
            Auction auction = byId.get(bid.auction());
            if (auction != null && bid.dateTime() >= auction.dateTime() && bid.dateTime() <= auction.expires()) {
                highest.merge(auction.id(), bid.price(), Math::max);
            }
        }
        Map<Long, long[]> totals = new TreeMap<>();
        highest.forEach((auction, price) -> {
            long[] total = totals.computeIfAbsent(byId.get(auction).category(), k -> new long[2]);
            total[0]++;
            total[1] += price;
        });
        Map<Long, JoinQueries.CategoryAverage> averages = new TreeMap<>();
        totals.forEach((category, total) -> averages.put(category,
                new JoinQueries.CategoryAverage(category, total[0], total[1], (double) total[1] / total[0])));
        return averages;
    }

    /** q5: per sliding window, the auctions with the most bids. */
    public List<WindowQueries.HotItem> q5(Duration window, Duration slide) {
        long size = window.toMillis();
        long step = slide.toMillis();
        Map<Long, Map<Long, Long>> countsByEnd = new TreeMap<>();
        for (Bid bid : bids) {
            for (long start = TimeWindow.windowStart(bid.dateTime(), 0, step); start > bid.dateTime() - size;
                    start -= step) {
                countsByEnd.computeIfAbsent(start + size, k -> new HashMap<>()).merge(bid.auction(), 1L, Long::sum);
            }
        }
        List<WindowQueries.HotItem> hot = new ArrayList<>();
        countsByEnd.forEach((end, counts) -> {
            long most = counts.values().stream().mapToLong(Long::longValue).max().orElse(0);
            counts.forEach((auction, count) -> {
                if (count == most) {
                    hot.add(new WindowQueries.HotItem(auction, count, end));
                }
            });
        });
        return hot;
    }

    /** q7: per tumbling window, the bids with the highest price. */
    public List<WindowQueries.HighestBid> q7(Duration window) {
        long size = window.toMillis();
        Map<Long, List<Bid>> byEnd = new TreeMap<>();
        for (Bid bid : bids) {
            byEnd.computeIfAbsent(TimeWindow.windowStart(bid.dateTime(), 0, size) + size, k -> new ArrayList<>())
                    .add(bid);
        }
        List<WindowQueries.HighestBid> highest = new ArrayList<>();
        byEnd.forEach((end, inWindow) -> {
            long top = inWindow.stream().mapToLong(Bid::price).max().orElseThrow();
            inWindow.stream().filter(bid -> bid.price() == top).forEach(bid -> highest.add(
                    new WindowQueries.HighestBid(end, bid.auction(), bid.bidder(), bid.price(), bid.dateTime())));
        });
        return highest;
    }

    /** q8: the persons who put up an auction in the tumbling window they registered in. */
    public List<JoinQueries.NewSeller> q8(Duration window) {
        long size = window.toMillis();
        Map<String, Boolean> sold = new HashMap<>();
        for (Auction auction : auctions) {
            sold.put(auction.seller() + "@" + TimeWindow.windowStart(auction.dateTime(), 0, size), true);
        }
        List<JoinQueries.NewSeller> sellers = new ArrayList<>();
        for (Person person : persons) {
            long start = TimeWindow.windowStart(person.dateTime(), 0, size);
            if (sold.containsKey(person.id() + "@" + start)) {
                sellers.add(new JoinQueries.NewSeller(person.id(), person.name(), start));
            }
        }
        return sellers;
    }

    /**
     * q11: each bidder's sessions: its bids in time order, cut where two are more than the gap
     * apart; a session ends the gap after its last bid.
     */
    public List<WindowQueries.BidderSession> q11(Duration gap) {
        long gapMs = gap.toMillis();
        Map<Long, List<Long>> times = new TreeMap<>();
        bids.forEach(bid -> times.computeIfAbsent(bid.bidder(), k -> new ArrayList<>()).add(bid.dateTime()));
        List<WindowQueries.BidderSession> sessions = new ArrayList<>();
        times.forEach((bidder, list) -> {
            list.sort(null);
            long start = list.get(0);
            long last = start;
            long count = 0;
            for (long time : list) {
                if (time - last > gapMs) {
                    sessions.add(new WindowQueries.BidderSession(bidder, count, start, last + gapMs));
                    start = time;
                    count = 0;
                }
                last = time;
                count++;
            }
            sessions.add(new WindowQueries.BidderSession(bidder, count, start, last + gapMs));
        });
        return sessions;
    }
}
