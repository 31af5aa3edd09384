package io.duraflow.rest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The web UI's files, served from the class path: {@code /} is {@code ui/index.html}, {@code /ui/*}
 * the files next to it (plain JavaScript and CSS, no build step), {@code /webjars/*} the
 * libraries of WebJars on the class path (uPlot for the checkpoint chart). Only names of letters,
 * digits, '.', '-' and '_' in at most a few directories are looked up, so no path can leave those
 * roots. Read once, then kept.
 */
final class StaticAssets {
    /** A file to send. {@code immutable}: a versioned library file that browsers may cache. */
    record Asset(byte[] bytes, String contentType, boolean immutable) {}

    private static final String UI_ROOT = "/io/duraflow/rest/ui/";
    private static final String WEBJARS_ROOT = "/META-INF/resources/webjars/";
    private static final Asset MISSING = new Asset(new byte[0], "", false);

    private final Map<String, Asset> cache = new ConcurrentHashMap<>();

    /** The file for a request path, or null. */
    Asset find(String path) {
        String resource;
        boolean immutable = false;
        if (path.equals("/") || path.equals("/index.html")) {
            resource = UI_ROOT + "index.html";
        } else if (path.startsWith("/ui/") && safe(path.substring(4))) {
            resource = UI_ROOT + path.substring(4);
        } else if (path.startsWith("/webjars/") && safe(path.substring(9))) {
            resource = WEBJARS_ROOT + path.substring(9);
            immutable = true;
        } else if (path.equals("/favicon.ico")) {
            resource = UI_ROOT + "favicon.svg";
        } else {
            return null;
        }
        boolean cacheable = immutable;
        Asset asset = cache.computeIfAbsent(resource, r -> load(r, cacheable));
        return asset == MISSING ? null : asset;
    }

    private static boolean safe(String relative) {
        return relative.matches("([A-Za-z0-9_\\-.]+/){0,4}[A-Za-z0-9_\\-.]+") && !relative.contains("..");
    }

    private static Asset load(String resource, boolean immutable) {
        try (InputStream in = StaticAssets.class.getResourceAsStream(resource)) {
            if (in == null) {
                return MISSING;
            }
            return new Asset(in.readAllBytes(), contentType(resource), immutable);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    static String contentType(String name) {
        String lower = name.toLowerCase(java.util.Locale.ROOT);
        if (lower.endsWith(".html")) {
            return "text/html; charset=utf-8";
        } else if (lower.endsWith(".js") || lower.endsWith(".mjs")) {
            return "text/javascript; charset=utf-8";
        } else if (lower.endsWith(".css")) {
            return "text/css; charset=utf-8";
        } else if (lower.endsWith(".svg")) {
            return "image/svg+xml";
        } else if (lower.endsWith(".png")) {
            return "image/png";
        } else if (lower.endsWith(".json")) {
            return "application/json; charset=utf-8";
        }
        return "application/octet-stream";
    }
}
