package io.duraflow.examples.nexmark;

import java.util.SplittableRandom;

/**
 * The strings of Nexmark events, drawn from the random of the event being generated, so they are
 * as deterministic as the rest of it. The lists are Nexmark's own (its {@code PersonGenerator}
 * and, for channels, the nexmark/nexmark {@code BidGenerator}); they are short so that queries
 * which filter on them (persons in some states, bids from some channels) find matches.
 *
 * <p>Two pools are built once, from fixed seeds, and never change afterwards: 256 KiB of
 * letters that {@code extra} fields are cut from (as nexmark/nexmark does, because drawing every
 * letter of a 500-byte field costs more than the rest of the event), and the channels with their
 * URLs. Immutable, so every thread may read them, and the same in every process.
 */
final class NexmarkStrings {
    /** Shortest length of a random string before its spaces are trimmed (Nexmark's {@code MIN_STRING_LENGTH}). */
    static final int MIN_STRING_LENGTH = 3;
    /** Bids come from a hot channel with probability {@code 1 - 1/HOT_CHANNEL_RATIO}. */
    static final int HOT_CHANNEL_RATIO = 2;
    /** Channels other than the hot ones: {@code channel-0} .. {@code channel-9999}. */
    static final int CHANNELS = 10_000;

    static final String[] US_STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    static final String[] US_CITIES = {"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend",
        "Redmond", "Seattle", "Kent", "Cheyenne"};
    static final String[] FIRST_NAMES = {"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah",
        "Deiter", "Walter"};
    static final String[] LAST_NAMES = {"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones",
        "Noris"};
    static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};

    /** A bid's channel and the URL that goes with it. */
    record Channel(String name, String url) {}

    /** Longer than the longest {@code extra}, which is under 1.2 times {@link NexmarkConfig#MAX_AVG_EVENT_BYTES}. */
    private static final int EXTRA_POOL_CHARS = 1 << 18;
    private static final long EXTRA_POOL_SEED = 0x4e65786d61726b31L;
    private static final long CHANNEL_SEED = 0x4e65786d61726b32L;
    private static final String EXTRA_POOL = buildExtraPool();
    private static final Channel[] HOT_CHANNEL_URLS = new Channel[HOT_CHANNELS.length];
    private static final Channel[] OTHER_CHANNELS = new Channel[CHANNELS];

    static {
        // One builder rather than string concatenation: ten thousand URLs are built while the
        // class loads, before the JIT compiles anything, and this is several times quicker.
        SplittableRandom random = new SplittableRandom(CHANNEL_SEED);
        StringBuilder url = new StringBuilder(96);
        for (int i = 0; i < HOT_CHANNELS.length; i++) {
            HOT_CHANNEL_URLS[i] = new Channel(HOT_CHANNELS[i], baseUrl(random, url).toString());
        }
        for (int i = 0; i < CHANNELS; i++) {
            baseUrl(random, url);
            // As nexmark/nexmark: nine channels in ten tag their URL with a channel id.
            if (random.nextInt(10) > 0) {
                url.append("&channel_id=").append(Math.abs(Integer.reverse(i)));
            }
            OTHER_CHANNELS[i] = new Channel("channel-".concat(Integer.toString(i)), url.toString());
        }
    }

    private NexmarkStrings() {}

    /** Between {@code MIN_STRING_LENGTH} and {@code maxLength - 1} letters, about one in 13 a space, trimmed. */
    static String letters(SplittableRandom random, int maxLength) {
        int length = MIN_STRING_LENGTH + random.nextInt(maxLength - MIN_STRING_LENGTH);
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = randomLetterOr(random, ' ');
        }
        return new String(chars).trim();
    }

    /**
     * Letters such that {@code currentBytes} plus their count is {@code avgBytes} on average:
     * uniform within 20 % of the missing bytes (Nexmark's {@code nextExtra}); empty when the
     * event is already larger than the average.
     */
    static String extra(SplittableRandom random, int currentBytes, int avgBytes) {
        if (currentBytes > avgBytes) {
            return "";
        }
        int missing = avgBytes - currentBytes;
        int delta = (int) Math.round(missing * 0.2);
        int length = missing - delta + (delta == 0 ? 0 : random.nextInt(2 * delta));
        int offset = random.nextInt(EXTRA_POOL.length() - length + 1);
        return EXTRA_POOL.substring(offset, offset + length);
    }

    static String personName(SplittableRandom random) {
        return FIRST_NAMES[random.nextInt(FIRST_NAMES.length)] + ' ' + LAST_NAMES[random.nextInt(LAST_NAMES.length)];
    }

    static String email(SplittableRandom random) {
        return letters(random, 7) + '@' + letters(random, 5) + ".com";
    }

    /** Four groups of four digits separated by spaces, {@code "0042 1234 9999 0007"}. */
    static String creditCard(SplittableRandom random) {
        char[] chars = new char[19];
        for (int group = 0; group < 4; group++) {
            int digits = random.nextInt(10_000);
            int at = group * 5;
            chars[at] = (char) ('0' + digits / 1000);
            chars[at + 1] = (char) ('0' + digits / 100 % 10);
            chars[at + 2] = (char) ('0' + digits / 10 % 10);
            chars[at + 3] = (char) ('0' + digits % 10);
            if (group < 3) {
                chars[at + 4] = ' ';
            }
        }
        return new String(chars);
    }

    static String city(SplittableRandom random) {
        return US_CITIES[random.nextInt(US_CITIES.length)];
    }

    static String state(SplittableRandom random) {
        return US_STATES[random.nextInt(US_STATES.length)];
    }

    /** One of the hot channels with probability {@code 1 - 1/HOT_CHANNEL_RATIO}, else one of the others. */
    static Channel channel(SplittableRandom random) {
        if (random.nextInt(HOT_CHANNEL_RATIO) > 0) {
            return HOT_CHANNEL_URLS[random.nextInt(HOT_CHANNEL_URLS.length)];
        }
        return OTHER_CHANNELS[random.nextInt(CHANNELS)];
    }

    /**
     * Fills {@code url} with {@code https://www.nexmark.com/<a>/<b>/<c>/item.htm?query=1}, each
     * part 3 or 4 characters, letters or {@code _}.
     */
    private static StringBuilder baseUrl(SplittableRandom random, StringBuilder url) {
        url.setLength(0);
        url.append("https://www.nexmark.com/");
        for (int part = 0; part < 3; part++) {
            int length = MIN_STRING_LENGTH + random.nextInt(5 - MIN_STRING_LENGTH);
            for (int i = 0; i < length; i++) {
                url.append(randomLetterOr(random, '_'));
            }
            url.append('/');
        }
        return url.append("item.htm?query=1");
    }

    /** A letter, or {@code gap} about one time in 13. */
    private static char randomLetterOr(SplittableRandom random, char gap) {
        return random.nextInt(13) == 0 ? gap : (char) ('a' + random.nextInt(26));
    }

    private static String buildExtraPool() {
        SplittableRandom random = new SplittableRandom(EXTRA_POOL_SEED);
        char[] chars = new char[EXTRA_POOL_CHARS];
        long bits = 0;
        for (int i = 0; i < chars.length; i++) {
            // 13 letters from each 63 random bits (26^13 < 2^63): class loading stays quick.
            if (i % 13 == 0) {
                bits = random.nextLong() >>> 1;
            }
            chars[i] = (char) ('a' + bits % 26);
            bits /= 26;
        }
        return new String(chars);
    }
}
