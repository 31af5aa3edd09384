package io.duraflow.bench;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The savepoint-restore benchmark's job on Duraflow (Flink's twin: {@code FlinkLargeState}): the
 * records of {@link LargeStateRecords} from an endless generator, keyed by key, into a keyed
 * function that writes each key's value once ({@code mode=build}) or, restored from a savepoint,
 * checks the values ({@code mode=restore}). Parameters: {@code keys}, {@code value-bytes}, {@code
 * parallelism} (the source's, for the idle records' reader index), {@code mode}.
 *
 * <p>The keyed function logs, at INFO in its TaskManager's log (times in microseconds since the
 * epoch): {@value StoreOrCheck#FIRST_LINE} on its first record, {@value StoreOrCheck#BUILT_LINE}
 * once it saw idle records from every reader (every write meant for it is then in its state),
 * {@value StoreOrCheck#CHECKED_LINE} every {@value StoreOrCheck#CHECK_LOG_EVERY} checks and when it
 * closes.
 */
public final class LargeStateJob implements DuraflowJob {
    static final String RESULT = "nothing";


    static final TypeSerializer<Tuple2<Long, Long>> RECORD = Types.tuple(Types.LONG, Types.LONG);

    @Override
    public String description() {
        return "one value of value-bytes pseudo-random bytes per key, written once, then checked after a restore"
                + " (the savepoint-restore benchmark)";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("LargeStateJob");
        long keys = params.getLong("keys", 1_048_576, 1, Long.MAX_VALUE / 4);
        int valueBytes = (int) params.getLong("value-bytes", LargeStateRecords.DEFAULT_VALUE_BYTES, 1, 1 << 20);
        int parallelism = (int) params.getLong("parallelism", 2, 1, 1024);
        LargeStateRecords.Mode mode = params.getRequired("mode").equals("restore") ? LargeStateRecords.Mode.RESTORE
                : LargeStateRecords.Mode.BUILD;
        DataGeneratorSource<Tuple2<Long, Long>> source = DataGeneratorSource.of("large-state(keys=" + keys + ")", RECORD,
                g -> Tuple2.of(LargeStateRecords.key(g, keys), LargeStateRecords.tag(g, keys, parallelism, mode)))
                .withSplits(parallelism);
        job.fromSource("Generate large state", source).uid("generate-large-state")
                .keyBy(Tuple2::f0, Types.LONG)
                .process(new StoreOrCheck(valueBytes, parallelism), Types.LONG).name("Store or check")
                .uid("store-or-check")
                .collect(RESULT);
    }

    /** Writes, checks or notes idle records (the rules of {@link LargeStateRecords}); never emits. */
    static final class StoreOrCheck extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Long> {
        static final String FIRST_LINE = "large-state first record";
        static final String BUILT_LINE = "large-state built";
        static final String CHECKED_LINE = "large-state checked";
        static final int CHECK_LOG_EVERY = 65_536;
        static final ValueStateDescriptor<byte[]> VALUE = new ValueStateDescriptor<>("value", Types.BYTES);
        private static final Logger LOG = LoggerFactory.getLogger(StoreOrCheck.class);

        private final int valueBytes;
        private final int parallelism;
        private transient ValueState<byte[]> value;
        private transient int subtask;
        private transient boolean firstSeen;
        private transient boolean[] idleFrom;
        private transient int idleReaders;
        private transient long written;
        private transient long checked;
        private transient long mismatched;
        private transient long missing;

        StoreOrCheck(int valueBytes, int parallelism) {
            this.valueBytes = valueBytes;
            this.parallelism = parallelism;
        }

        @Override
        public void open(RuntimeContext context) {
            value = context.state().getState(VALUE);
            subtask = context.subtaskIndex();
            idleFrom = new boolean[parallelism];
        }

        @Override
        public void processElement(Tuple2<Long, Long> record, Context<Long> context, Collector<Long> out) {
            if (!firstSeen) {
                firstSeen = true;
                LOG.info("{} subtask={} at-us={}", FIRST_LINE, subtask, nowMicros());
            }
            long tag = record.f1();
            if (tag == LargeStateRecords.WRITE) {
                value.update(LargeStateRecords.value(record.f0(), valueBytes));
                written++;
            } else if (tag == LargeStateRecords.CHECK) {
                byte[] stored = value.value();
                if (stored == null) {
                    missing++;
                } else if (!LargeStateRecords.matches(record.f0(), stored, valueBytes)) {
                    mismatched++;
                }
                if (++checked % CHECK_LOG_EVERY == 0) {
                    logChecked();
                }
            } else {
                int reader = (int) (tag - LargeStateRecords.IDLE);
                if (!idleFrom[reader]) {
                    idleFrom[reader] = true;
                    if (++idleReaders == parallelism) {
                        LOG.info("{} subtask={} written={} at-us={}", BUILT_LINE, subtask, written, nowMicros());
                    }
                }
            }
        }

        @Override
        public void close() {
            logChecked();
        }

        private void logChecked() {
            LOG.info("{} subtask={} checked={} mismatched={} missing={}", CHECKED_LINE, subtask, checked, mismatched,
                    missing);
        }

        private static long nowMicros() {
            return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        }
    }
}
