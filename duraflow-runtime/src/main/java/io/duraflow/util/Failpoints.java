package io.duraflow.util;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Named points where failure tests stop a process on purpose. A process started with
 * {@code -Dduraflow.failpoints=name1,name2} logs {@code FAILPOINT <name> reached} when it gets
 * to one of them and then blocks that thread for good, so a test can SIGKILL it at exactly that
 * moment. Without the property every call is a no-op.
 *
 * <p>A malformed property (an empty or repeated name, a character outside {@code [A-Za-z0-9._-]})
 * is a mistake in a failure test: the command line rejects it at start-up through {@link
 * #validate()} with a one-line error, and {@link #hit} throws that error rather than running the
 * test without the failpoint it asked for.
 */
public final class Failpoints {
    public static final String PROPERTY = "duraflow.failpoints";

    private static final Logger LOG = LoggerFactory.getLogger(Failpoints.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]+");
    /** Parsed once; never throws here, since an error in a static initializer surfaces as ExceptionInInitializerError. */
    private static final Parsed ACTIVE = parseQuietly(System.getProperty(PROPERTY, ""));

    private record Parsed(Set<String> names, String error) {}

    private Failpoints() {}

    /**
     * Checks the {@value #PROPERTY} system property as it is now.
     *
     * @throws IllegalArgumentException with a one-line message naming the bad value
     */
    public static void validate() {
        parse(System.getProperty(PROPERTY, ""));
    }

    /**
     * The failpoint names in {@code value} (comma-separated; "" is none).
     *
     * @throws IllegalArgumentException with a one-line message naming the bad value
     */
    public static Set<String> parse(String value) {
        Set<String> names = new LinkedHashSet<>();
        if (value.isEmpty()) {
            return names;
        }
        for (String name : value.split(",", -1)) {
            String problem = null;
            if (name.isBlank()) {
                problem = "has an empty name";
            } else if (!NAME.matcher(name).matches()) {
                problem = "has the name '" + name + "', which is not letters, digits, '.', '_' or '-'";
            } else if (!names.add(name)) {
                problem = "names '" + name + "' twice";
            }
            if (problem != null) {
                throw new IllegalArgumentException("-D" + PROPERTY + "='" + value + "' " + problem
                        + "; give each failpoint once, separated by commas, e.g. -D" + PROPERTY
                        + "=dispatcher.before-cleanup");
            }
        }
        return names;
    }

    private static Parsed parseQuietly(String value) {
        try {
            return new Parsed(parse(value), null);
        } catch (IllegalArgumentException e) {
            return new Parsed(Set.of(), e.getMessage());
        }
    }

    /**
     * Blocks this thread for good if {@code name} is an active failpoint.
     *
     * @throws IllegalStateException if the {@value #PROPERTY} property is malformed
     */
    public static void hit(String name) {
        if (ACTIVE.error() != null) {
            throw new IllegalStateException(ACTIVE.error());
        }
        if (!ACTIVE.names().contains(name)) {
            return;
        }
        LOG.warn("FAILPOINT {} reached; this thread stops here", name);
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
