package io.duraflow.util;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
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
 * <p>A process started with {@code -Dduraflow.failpoints.file=PATH} also stops at the failpoints
 * that file names when the point is reached (one name a line; no file is none), so a test can arm
 * and disarm them while the process runs: several tests share one cluster, and a standby that
 * takes over does not stop where its predecessor did once the test removed the name. The file is
 * read at every {@link #hit}, which only failure tests set it up for.
 *
 * <p>A malformed property (an empty or repeated name, a character outside {@code [A-Za-z0-9._-]})
 * is a mistake in a failure test: the command line rejects it at start-up through {@link
 * #validate()} with a one-line error, and {@link #hit} throws that error rather than running the
 * test without the failpoint it asked for.
 */
public final class Failpoints {
    public static final String PROPERTY = "duraflow.failpoints";
    public static final String FILE_PROPERTY = "duraflow.failpoints.file";

    private static final Logger LOG = LoggerFactory.getLogger(Failpoints.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]+");
    /** Parsed once; never throws here, since an error in a static initializer surfaces as ExceptionInInitializerError. */
    private static final Parsed ACTIVE = parseQuietly(System.getProperty(PROPERTY, ""));
    /** The file of failpoints armed at run time, or null. */
    private static final Path ARMED_FILE = armedFile(System.getProperty(FILE_PROPERTY, ""));

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

    private static Path armedFile(String value) {
        return value.isBlank() ? null : Path.of(value);
    }

    /** Whether {@code file} (null: none) names {@code name} on a line of its own now; a missing file names nothing. */
    static boolean armedIn(Path file, String name) {
        if (file == null) {
            return false;
        }
        try {
            return Files.readAllLines(file).stream().map(String::strip).anyMatch(name::equals);
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the failpoints in " + file, e);
        }
    }

    /**
     * Blocks this thread for good if {@code name} is an active failpoint, given at start or armed in
     * the {@value #FILE_PROPERTY} file now.
     *
     * @throws IllegalStateException if the {@value #PROPERTY} property is malformed
     */
    public static void hit(String name) {
        if (ACTIVE.error() != null) {
            throw new IllegalStateException(ACTIVE.error());
        }
        if (!ACTIVE.names().contains(name) && !armedIn(ARMED_FILE, name)) {
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
