package io.duraflow.cli;

import io.duraflow.api.types.Tuple2;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Compares large results exactly, with a failure message that stays short. */
final class ExactResults {
    private static final int SHOWN = 10;

    private ExactResults() {}

    /** Key -> value of (key, value) records; a key that occurs twice is an error (a duplicated record). */
    static <K, V> Map<K, V> toMap(List<Object> records) {
        Map<K, V> map = new HashMap<>();
        for (Object record : records) {
            @SuppressWarnings("unchecked")
            Tuple2<K, V> pair = (Tuple2<K, V>) record;
            V previous = map.put(pair.f0(), pair.f1());
            if (previous != null) {
                throw new AssertionError("key " + pair.f0() + " occurs more than once: " + previous + " and "
                        + pair.f1());
            }
        }
        return map;
    }

    /** Fails unless both maps hold the same keys with equal values; names up to 10 differences of each kind. */
    static <K, V> void assertSameEntries(String what, Map<K, V> actual, Map<K, V> expected) {
        List<String> missing = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        List<String> extra = new ArrayList<>();
        int missingCount = 0;
        int wrongCount = 0;
        int extraCount = 0;
        for (Map.Entry<K, V> entry : expected.entrySet()) {
            if (!actual.containsKey(entry.getKey())) {
                if (missingCount++ < SHOWN) {
                    missing.add(entry.getKey() + "=" + entry.getValue());
                }
            } else if (!Objects.equals(actual.get(entry.getKey()), entry.getValue())) {
                if (wrongCount++ < SHOWN) {
                    wrong.add(entry.getKey() + ": expected " + entry.getValue() + ", got "
                            + actual.get(entry.getKey()));
                }
            }
        }
        for (Map.Entry<K, V> entry : actual.entrySet()) {
            if (!expected.containsKey(entry.getKey()) && extraCount++ < SHOWN) {
                extra.add(entry.getKey() + "=" + entry.getValue());
            }
        }
        if (missingCount + wrongCount + extraCount > 0) {
            throw new AssertionError(what + ": " + actual.size() + " entries, expected " + expected.size() + "; "
                    + missingCount + " missing " + missing + ", " + wrongCount + " with a wrong value " + wrong + ", "
                    + extraCount + " unexpected " + extra);
        }
    }

    /** Sorted string forms, for small results whose records have a meaningful toString. */
    static List<String> sortedStrings(List<?> records) {
        List<String> strings = new ArrayList<>();
        for (Object record : records) {
            strings.add(String.valueOf(record));
        }
        strings.sort(null);
        return strings;
    }
}
