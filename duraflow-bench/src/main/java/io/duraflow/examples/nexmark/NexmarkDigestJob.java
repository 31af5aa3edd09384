package io.duraflow.examples.nexmark;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.InvalidJobParametersException;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.sink.Sink;
import io.duraflow.api.sink.SinkContext;
import io.duraflow.api.sink.SinkWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.bench.NexmarkDigest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Locale;

/**
 * {@link NexmarkQueries} as the Nexmark benchmark runs it: the same source, watermarks and query
 * plans (the queries of {@link WindowQueries} and {@link JoinQueries}, which is why this class sits
 * in their package although it ships with the benchmarks), with one difference: the results go
 * to a {@link DigestSink}, which digests them where they are produced ({@link NexmarkDigest})
 * instead of shipping millions of them to the client or to files, which would dominate q0 and q1.
 *
 * <p>Parameters: those of {@link NexmarkQueries} (without {@code output} and {@code rebalance})
 * and {@code digest-dir}, a directory on this machine where each sink subtask writes its digest
 * when its input ends ({@link DigestSink#line}).
 */
public final class NexmarkDigestJob implements DuraflowJob {
    @Override
    public String description() {
        return "Nexmark queries with their results digested where they are produced (the Nexmark benchmark)";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        String query = params.getString("query", "q0");
        long events = params.getLong("events", 1_000_000L, 1, Long.MAX_VALUE);
        long outOfOrdernessMs = params.getLong("out-of-orderness", 0L, 0, Duration.ofDays(1).toMillis());
        long eventRate = params.getLong("event-rate", NexmarkConfig.defaults().eventsPerSecond(), 1,
                NexmarkConfig.MAX_EVENTS_PER_SECOND);
        Duration window = Duration.ofMillis(params.getLong("window", 10_000, 1, Duration.ofDays(1).toMillis()));
        Duration slide = Duration.ofMillis(params.getLong("slide", 2_000, 1, window.toMillis()));
        Duration gap = Duration.ofMillis(params.getLong("gap", 10_000, 1, Duration.ofDays(1).toMillis()));
        DigestSink<Object> sink = new DigestSink<>(params.getRequired("digest-dir"), query);
        NexmarkConfig config = NexmarkConfig.defaults().withMaxOutOfOrdernessMs(outOfOrdernessMs)
                .withEventsPerSecond(eventRate);
        job.name("Nexmark " + query + " (digested)");
        Flow<Event> source = job.fromSource("Nexmark events", NexmarkSource.of(config).withEvents(events),
                WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofMillis(outOfOrdernessMs))
                        .withTimestampAssigner((event, previous) -> event.timestamp()));
        Flow<?> results = switch (query) {
            case "q0" -> bids(source).map(bid -> bid, Types.record(Bid.class)).name("q0: pass through");
            case "q1" -> bids(source).map(bid -> new Bid(bid.auction(), bid.bidder(),
                    NexmarkQueries.toEuroCents(bid.price()), bid.channel(), bid.url(), bid.dateTime(), bid.extra()),
                    Types.record(Bid.class)).name("q1: currency conversion");
            case "q2" -> bids(source).filter(bid -> bid.auction() % NexmarkQueries.Q2_AUCTION_MODULUS == 0)
                    .name("q2: selection").map(bid -> Tuple2.of(bid.auction(), bid.price()),
                            Types.tuple(Types.LONG, Types.LONG));
            case "q3" -> JoinQueries.q3(persons(source), auctions(source));
            case "q4" -> JoinQueries.q4(auctions(source), bids(source));
            case "q5" -> WindowQueries.q5(bids(source), window, slide);
            case "q7" -> WindowQueries.q7(bids(source), window);
            case "q8" -> JoinQueries.q8(persons(source), auctions(source), window);
            case "q11" -> WindowQueries.q11(bids(source), gap);
            default -> throw new InvalidJobParametersException("unknown Nexmark query '" + query
                    + "': choose one of q0, q1, q2, q3, q4, q5, q7, q8, q11");
        };
        @SuppressWarnings("unchecked")
        Flow<Object> any = (Flow<Object>) results;
        any.sinkTo("Digest results", sink);
    }

    // The same filters and maps as NexmarkQueries' (private there).
    private static Flow<Bid> bids(Flow<Event> events) {
        return events.filter(event -> event.bid() != null).name("Bids")
                .map(Event::bid, Types.record(Bid.class)).name("Bid");
    }

    private static Flow<Person> persons(Flow<Event> events) {
        return events.filter(event -> event.person() != null).name("Persons")
                .map(Event::person, Types.record(Person.class)).name("Person");
    }

    private static Flow<Auction> auctions(Flow<Event> events) {
        return events.filter(event -> event.auction() != null).name("Auctions")
                .map(Event::auction, Types.record(Auction.class)).name("Auction");
    }

    /**
     * Digests its subtask's results; when the input ends, writes them as one text line (see
     * {@link #line}) to {@code digest-<subtask>.txt} in the directory (a temporary file renamed
     * over it, so a reader never sees half a line). A restarted attempt overwrites it; the
     * benchmark runs without restarts.
     */
    static final class DigestSink<T> implements Sink<T> {
        private final String dir;
        private final String query;

        DigestSink(String dir, String query) {
            this.dir = dir;
            this.query = query;
        }

        @Override
        public SinkWriter<T> createWriter(SinkContext context) {
            NexmarkDigest.Accumulator accumulator = new NexmarkDigest.Accumulator(query);
            Path file = Path.of(dir, "digest-" + context.subtaskIndex() + ".txt");
            return new SinkWriter<>() {
                @Override
                public void write(T record) {
                    accumulator.add(record);
                }

                @Override
                public void finish() throws Exception {
                    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
                    Files.writeString(temporary, line(accumulator), StandardCharsets.UTF_8);
                    Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
            };
        }

        @Override
        public String description() {
            return "nexmark-digest(" + query + "," + dir + ")";
        }
    }

    /** {@code <results> <hash sum, hex> <first result, epoch ms> <last result, epoch ms>}. */
    static String line(NexmarkDigest.Accumulator accumulator) {
        NexmarkDigest.Digest digest = accumulator.digest();
        return String.format(Locale.ROOT, "%d %x %d %d%n", digest.results(), digest.hashSum(),
                accumulator.firstResultAtMs(), accumulator.lastResultAtMs());
    }
}
