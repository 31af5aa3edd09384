package io.duraflow.fs;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A location on a {@link FileSystem}: a scheme ({@code file}, {@code hdfs}, {@code s3}, ...), an
 * optional authority ({@code namenode:8020}, a bucket) and an absolute, normalized path with
 * {@code /} separators. {@link java.nio.file.Path} cannot name {@code hdfs://} locations, which is
 * why the durable parts of Duraflow use this type.
 *
 * <p>Invariants: {@code path} starts with {@code /}, has no empty, {@code .} or {@code ..}
 * segments and no trailing {@code /} (except the root {@code /}). Two values are equal exactly when
 * they name the same location, so {@code /a/b}, {@code file:/a/b} and {@code file:///a/b} are equal.
 *
 * <p>{@link #toString()} of a local path is the plain path ({@code /data/ha/j1}), as error messages
 * have always shown it; other schemes print as a URI ({@code hdfs://nn:8020/ha/j1}).
 *
 * @param scheme lower case; {@link #LOCAL_SCHEME} for the local file system
 * @param authority null if none (always null for local paths)
 * @param path absolute and normalized, see above
 */
public record FsPath(String scheme, String authority, String path) {
    /** The scheme of {@link LocalFileSystem}; plain paths get it. */
    public static final String LOCAL_SCHEME = "file";
    /** A URI scheme of at least two characters, so a Windows drive letter ({@code C:\}) is not taken for one. */
    private static final Pattern SCHEME_PREFIX = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+:.*");

    public FsPath {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(path, "path");
        if (scheme.isEmpty() || !scheme.equals(scheme.toLowerCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException("scheme must be non-empty lower case: '" + scheme + "'");
        }
        if (authority != null && authority.isEmpty()) {
            authority = null;
        }
        if (scheme.equals(LOCAL_SCHEME) && authority != null) {
            throw new IllegalArgumentException("a local path has no authority: file://" + authority + path);
        }
        if (!path.equals(normalize(path))) {
            throw new IllegalArgumentException("not an absolute normalized path: '" + path + "'");
        }
    }

    /**
     * Parses a configured location: a URI with a scheme ({@code hdfs://nn:8020/ha},
     * {@code file:///data/ha}) or a plain local path ({@code /data/ha}, or relative to the working
     * directory: {@code .duraflow/ha}).
     *
     * @throws IllegalArgumentException if it is neither, naming the text
     */
    public static FsPath parse(String pathOrUri) {
        Objects.requireNonNull(pathOrUri, "pathOrUri");
        if (pathOrUri.isBlank()) {
            throw new IllegalArgumentException("empty path");
        }
        if (!SCHEME_PREFIX.matcher(pathOrUri).matches()) {
            return of(Path.of(pathOrUri));
        }
        URI uri;
        try {
            uri = new URI(pathOrUri);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a path or URI: '" + pathOrUri + "': " + e.getReason());
        }
        return of(uri);
    }

    /** The location a URI names; the URI must have a scheme and an absolute path. */
    public static FsPath of(URI uri) {
        if (uri.getScheme() == null || uri.isOpaque() || uri.getPath() == null || !uri.getPath().startsWith("/")) {
            throw new IllegalArgumentException("not a hierarchical URI with a scheme and an absolute path: '"
                    + uri + "'");
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("a file system URI has no query or fragment: '" + uri + "'");
        }
        String scheme = uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        String authority = uri.getAuthority();
        if (scheme.equals(LOCAL_SCHEME) && "localhost".equalsIgnoreCase(authority)) {
            authority = null;
        }
        return new FsPath(scheme, authority, normalize(uri.getPath()));
    }

    /** A local path, made absolute against the working directory and normalized. */
    public static FsPath of(Path localPath) {
        Path absolute = localPath.toAbsolutePath().normalize();
        return new FsPath(LOCAL_SCHEME, null, normalize(absolute.toString().replace(absolute.getFileSystem()
                .getSeparator(), "/")));
    }

    /** Whether this names a file on the local file system. */
    public boolean isLocal() {
        return scheme.equals(LOCAL_SCHEME);
    }

    /** This local path as a {@link Path}; fails for other schemes. */
    public Path toLocalPath() {
        if (!isLocal()) {
            throw new IllegalStateException("not a local path: " + this);
        }
        return Path.of(path);
    }

    public URI toUri() {
        try {
            return new URI(scheme, authority, path, null, null);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot form a URI from " + scheme + ", " + authority + ", " + path, e);
        }
    }

    /**
     * The location {@code relative} names below this one: one name ({@code "job-events"}) or
     * several separated by {@code /} ({@code "jobs/j1"}).
     *
     * @throws IllegalArgumentException if {@code relative} is empty, absolute, or has an empty,
     *     {@code .} or {@code ..} segment: a child never escapes its parent
     */
    public FsPath resolve(String relative) {
        Objects.requireNonNull(relative, "relative");
        if (relative.isEmpty() || relative.startsWith("/")) {
            throw new IllegalArgumentException("not a relative path: '" + relative + "'");
        }
        for (String segment : relative.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("bad segment '" + segment + "' in relative path '" + relative + "'");
            }
        }
        return new FsPath(scheme, authority, path.equals("/") ? "/" + relative : path + "/" + relative);
    }

    /** The enclosing directory, or null for the root. */
    public FsPath parent() {
        if (path.equals("/")) {
            return null;
        }
        int slash = path.lastIndexOf('/');
        return new FsPath(scheme, authority, slash == 0 ? "/" : path.substring(0, slash));
    }

    /** The last segment ({@code events.0} of {@code /ha/j1/events.0}); empty for the root. */
    public String name() {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    @Override
    public String toString() {
        return isLocal() ? path : toUri().toString();
    }

    /** Collapses repeated slashes, drops {@code .} segments, resolves {@code ..} (never above the root). */
    private static String normalize(String path) {
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("not an absolute path: '" + path + "'");
        }
        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                if (segments.isEmpty()) {
                    throw new IllegalArgumentException("path goes above the root: '" + path + "'");
                }
                segments.remove(segments.size() - 1);
            } else {
                segments.add(segment);
            }
        }
        return "/" + String.join("/", segments);
    }
}
