package io.duraflow.examples;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.GeneratedSource;
import io.duraflow.api.connectors.TextFileSource;
import io.duraflow.api.connectors.TextFileSink;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import java.util.regex.Pattern;

/**
 * Counts words. By default over generated words: word i is "w" + (i * 7919 % distinct), for i
 * from 0 to words-1; with {@code input} over the whitespace-separated words of text files.
 *
 * <p>Parameters: {@code words} (default 1,000,000), {@code distinct} (100,000), {@code splits}
 * (splits of the generated input, default 4 per source task), {@code input} (file or directory),
 * {@code output} (directory for part files; default: results go back to the client as "counts").
 */
public final class WordCount implements DuraflowJob {
    public static final String RESULT = "counts";

    /** The generated word with index i; public so tests compute the expected counts independently. */
    public static String word(long index, long distinct) {
        return "w" + (index * 7919 % distinct);
    }

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    @Override
    public String description() {
        return "counts generated words or the words of text files";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        job.name("WordCount");
        Flow<String> words;
        if (params.has("input")) {
            words = job.fromSource("Read text", new TextFileSource(params.getRequired("input")))
                    .flatMap((String line, io.duraflow.api.functions.Collector<String> out) -> {
                        for (String token : WHITESPACE.split(line)) {
                            if (!token.isEmpty()) {
                                out.collect(token.toLowerCase());
                            }
                        }
                    }, Types.STRING).name("Tokenize");
        } else {
            long count = params.getLong("words", 1_000_000L, 0, Long.MAX_VALUE / 7919);
            long distinct = params.getLong("distinct", 100_000L, 1, Integer.MAX_VALUE);
            int splits = params.getInt("splits", 8, 1, 1_000_000);
            words = job.fromSource("Generate words",
                    GeneratedSource.of("words(distinct=" + distinct + ")", 0, count, splits, Types.STRING,
                            i -> word(i, distinct)));
        }
        Flow<Tuple2<String, Long>> counts = words
                .map(w -> Tuple2.of(w, 1L), Types.tuple(Types.STRING, Types.LONG)).name("Pair")
                .keyBy(Tuple2::f0, Types.STRING)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1())).name("Count");
        if (params.has("output")) {
            counts.sinkTo("Write counts", new TextFileSink<>(params.getRequired("output"),
                    t -> t.f0() + "\t" + t.f1()));
        } else {
            counts.collect(RESULT);
        }
    }
}
