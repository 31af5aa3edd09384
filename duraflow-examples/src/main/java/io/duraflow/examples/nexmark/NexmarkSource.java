package io.duraflow.examples.nexmark;

import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.connectors.StrideSplit;
import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import java.util.Objects;

/**
 * Nexmark events for jobs: {@link NexmarkGenerator#event(long)} for n = 0, 1, 2, ..., endless or
 * up to {@link #withEvents(long) events}, at most {@link #withRate(long) rate} events per second
 * of wall-clock time over all readers.
 *
 * <pre>{@code
 * job.fromSource("Nexmark", NexmarkSource.of(NexmarkConfig.defaults()).withEvents(100_000_000))
 * }</pre>
 *
 * <p>A {@link DataGeneratorSource} underneath: the event numbers are dealt into stride splits
 * (split {@code j} of {@code k} reads {@code j, j + k, j + 2k, ...}), whose positions are
 * checkpointed, so a restored job continues with exactly the events it had not emitted. Each
 * split's events are in event-number order, so their timestamps are out of order by at most
 * {@link NexmarkConfig#maxOutOfOrdernessMs()}; a reader alternates between its splits a few
 * thousand events at a time, so its output as a whole is not: watermarks must be kept per split.
 *
 * <p>The description, part of the plan fingerprint, holds every parameter of the config.
 */
public final class NexmarkSource implements Source<Event, StrideSplit> {
    /** No limit on events or on the rate. */
    public static final long UNLIMITED = 0;

    private final NexmarkConfig config;
    private final long events;
    private final long eventsPerSecond;
    private final int splits;
    private final DataGeneratorSource<Event> generated;

    private NexmarkSource(NexmarkConfig config, long events, long eventsPerSecond, int splits) {
        Objects.requireNonNull(config, "config");
        if (events < 0) {
            throw new IllegalArgumentException("nexmark event count must not be negative (0: endless), got " + events);
        }
        if (eventsPerSecond < 0) {
            throw new IllegalArgumentException("nexmark rate must not be negative (0: unlimited), got "
                    + eventsPerSecond);
        }
        if (splits < 0) {
            throw new IllegalArgumentException("nexmark split count must not be negative (0: one per reader), got "
                    + splits);
        }
        this.config = config;
        this.events = events;
        this.eventsPerSecond = eventsPerSecond;
        this.splits = splits;
        NexmarkGenerator generator = new NexmarkGenerator(config);
        DataGeneratorSource<Event> source = DataGeneratorSource.of("nexmark(" + config + ")", Event.TYPE,
                generator::event).withRate(eventsPerSecond).withSplits(splits);
        this.generated = events == UNLIMITED ? source : source.withCount(events);
    }

    /** Endless events of {@code config}, as fast as the readers go. */
    public static NexmarkSource of(NexmarkConfig config) {
        return new NexmarkSource(config, UNLIMITED, UNLIMITED, 0);
    }

    /** Ends after events {@code 0 .. count-1} ({@link #UNLIMITED}: endless). */
    public NexmarkSource withEvents(long count) {
        return new NexmarkSource(config, count, eventsPerSecond, splits);
    }

    /** At most this many events per second of wall-clock time over all readers ({@link #UNLIMITED}: no limit). */
    public NexmarkSource withRate(long perSecond) {
        return new NexmarkSource(config, events, perSecond, splits);
    }

    /** Deals the event numbers into this many splits (0: the source's parallelism when the job first starts). */
    public NexmarkSource withSplits(int count) {
        return new NexmarkSource(config, events, eventsPerSecond, count);
    }

    public NexmarkConfig config() {
        return config;
    }

    /** How many events it emits; {@link #UNLIMITED}: endless. */
    public long events() {
        return events;
    }

    /** Its wall-clock rate limit in events per second; {@link #UNLIMITED}: none. */
    public long rate() {
        return eventsPerSecond;
    }

    @Override
    public Boundedness boundedness() {
        return generated.boundedness();
    }

    @Override
    public SplitEnumerator<StrideSplit> createEnumerator(SplitEnumeratorContext<StrideSplit> context) {
        return generated.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<StrideSplit> restoreEnumerator(SplitEnumeratorContext<StrideSplit> context, byte[] state) {
        return generated.restoreEnumerator(context, state);
    }

    @Override
    public SourceReader<Event, StrideSplit> createReader(SourceReaderContext context) {
        return generated.createReader(context);
    }

    @Override
    public SplitSerializer<StrideSplit> splitSerializer() {
        return generated.splitSerializer();
    }

    @Override
    public TypeSerializer<Event> producedType() {
        return Event.TYPE;
    }

    @Override
    public String description() {
        return generated.description();
    }
}
