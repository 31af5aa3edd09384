package io.duraflow.rest;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Message;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.duraflow.config.Configuration;
import io.duraflow.config.RestOptions;
import io.duraflow.rpc.RpcServers;
import io.duraflow.util.Futures;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's HTTP endpoint: the REST API under {@code /v1} ({@link RestApi}) and the web UI
 * ({@link StaticAssets}), on the JDK's {@code com.sun.net.httpserver} with a small pool of its own
 * threads. What every request goes through, in this order:
 *
 * <ol>
 *   <li>Bound to a loopback address, a request whose {@code Host} is not a loopback name is
 *       refused (403): a web page on another site cannot reach this API through DNS rebinding.</li>
 *   <li>Under {@code /v1}: an unknown path is 404, a known path with another method 405 with
 *       {@code Allow}.</li>
 *   <li>With {@code rest.auth.token} set, every API request but the OpenAPI document needs
 *       {@code Authorization: Bearer <token>}; otherwise 401 and nothing happens.</li>
 *   <li>A standby sends requests about the cluster to the leader: 307 to the leader's URL with a
 *       JSON body naming it (503 while no leader is known, or while this one takes over).</li>
 *   <li>An action (POST) must say {@code Content-Type: application/json}, else 415: a plain HTML
 *       form on another site cannot send that, and a script must pass a CORS preflight that this
 *       server never grants.</li>
 *   <li>The route answers, possibly later: the JobManager answers on its main thread, and the
 *       reply is written on this server's threads, never on the main thread.</li>
 * </ol>
 *
 * Errors are JSON: {@code {"status": 404, "error": "Not Found", "message": "...", "field": "jobId"}}
 * (field only for a bad request). gRPC statuses map to HTTP ones in {@link HttpStatuses}.
 */
public final class RestServer implements AutoCloseable {
    static {
        io.duraflow.util.JdkHttpServers.configure();
    }

    private static final Logger LOG = LoggerFactory.getLogger(RestServer.class);
    private static final int MAX_BODY_BYTES = 1 << 20;

    private final HttpServer server;
    private final ExecutorService threads;
    private final RestBackend backend;
    private final List<Route> routes;
    private final StaticAssets assets = new StaticAssets();
    private final ObjectMapper json = new ObjectMapper();
    private final byte[] token;
    private final boolean loopbackOnly;
    private final String url;

    private RestServer(HttpServer server, ExecutorService threads, RestBackend backend, String host, byte[] token) {
        this.server = server;
        this.threads = threads;
        this.backend = backend;
        this.token = token;
        this.routes = new RestApi(backend, json, new OpenApi(json)).routes();
        this.loopbackOnly = server.getAddress().getAddress().isLoopbackAddress();
        this.url = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + server.getAddress().getPort();
    }

    /**
     * Listens on {@code rest.address}:{@code rest.port}, or returns null if {@code rest.port} is -1.
     *
     * @throws RpcServers.BindFailedException if the port is taken, saying which option to change
     */
    public static RestServer start(Configuration config, RestBackend backend) {
        int port = config.get(RestOptions.PORT);
        if (port < 0) {
            return null;
        }
        String host = config.get(RestOptions.ADDRESS);
        String token = config.get(RestOptions.AUTH_TOKEN);
        HttpServer server;
        try {
            server = bind(host, port, !config.contains(RestOptions.PORT));
        } catch (BindException e) {
            throw new RpcServers.BindFailedException("port " + port + " on " + host + " is already in use; stop what"
                    + " uses it or choose another port with -D" + RestOptions.PORT.key() + "=<port>", e);
        } catch (IOException e) {
            throw new RpcServers.BindFailedException("cannot listen on " + host + ":" + port + " ("
                    + RestOptions.ADDRESS.key() + ", " + RestOptions.PORT.key() + "): " + e.getMessage(), e);
        }
        AtomicInteger count = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "rest-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        RestServer rest = new RestServer(server, threads, backend, host,
                token == null ? null : token.getBytes(StandardCharsets.UTF_8));
        server.createContext("/", rest::handle);
        server.start();
        LOG.info("REST API and web UI at {}/{}", rest.url, token == null ? "" : " (bearer token required)");
        return rest;
    }

    /**
     * Binds {@code port}; when that is only the default (8081, not set by anyone) and taken, e.g. by
     * a standby or another cluster on the same machine, a free port instead: the URL that clients
     * need is published with the leader's address and logged, so nobody has to guess it.
     */
    private static HttpServer bind(String host, int port, boolean portIsDefault) throws IOException {
        try {
            return HttpServer.create(new InetSocketAddress(host, port), 64);
        } catch (BindException e) {
            if (!portIsDefault || port == 0) {
                throw e;
            }
            HttpServer server = HttpServer.create(new InetSocketAddress(host, 0), 64);
            LOG.warn("The default REST port {} on {} is in use; the REST API and web UI listen on port {} instead"
                    + " (set {} to choose)", port, host, server.getAddress().getPort(), RestOptions.PORT.key());
            return server;
        }
    }

    /** {@code http://host:port}, as the leader advertises it. */
    public String url() {
        return url;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** The routes, for the OpenAPI coverage test. */
    List<Route> routes() {
        return routes;
    }

    // ------------------------------------------------------------------ one request

    private void handle(HttpExchange exchange) {
        try {
            dispatch(exchange);
        } catch (RestException e) {
            sendError(exchange, e.status(), e.getMessage(), e.field(), Map.of());
        } catch (RuntimeException | IOException e) {
            LOG.warn("REST request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
            sendError(exchange, 500, "internal error: " + io.duraflow.rpc.Rpc.describe(e), "", Map.of());
        }
    }

    private void dispatch(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        if (loopbackOnly && !isLoopbackHost(exchange.getRequestHeaders().getFirst("Host"))) {
            throw new RestException(403, "this JobManager's REST API listens on a loopback address and answers only"
                    + " requests to a loopback host name (Host: 127.0.0.1 or localhost)");
        }
        if (!path.equals(RestApi.PREFIX) && !path.startsWith(RestApi.PREFIX + "/")) {
            serveAsset(exchange, method, path);
            return;
        }
        List<String> allowed = new ArrayList<>();
        Route matched = null;
        Map<String, String> params = null;
        for (Route route : routes) {
            Map<String, String> match = route.match(path);
            if (match != null) {
                allowed.add(route.method());
                if (route.method().equals(method)) {
                    matched = route;
                    params = match;
                }
            }
        }
        if (allowed.isEmpty()) {
            throw new RestException(404, "no such resource: " + RestApi.oneLine(path) + "; see "
                    + RestApi.PREFIX + "/openapi.json");
        }
        if (matched == null) {
            sendError(exchange, 405, "method " + RestApi.oneLine(method) + " is not allowed on " + RestApi.oneLine(path)
                    + "; allowed: " + String.join(", ", allowed), "", Map.of("Allow", String.join(", ", allowed)));
            return;
        }
        if (!matched.template().equals(RestApi.PREFIX + "/openapi.json")) {
            checkToken(exchange);
        }
        if (matched.leaderOnly() && !leads(exchange)) {
            return;
        }
        String type = String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")).toLowerCase(java.util.Locale.ROOT);
        boolean jarUpload = method.equals("POST") && type.startsWith("application/java-archive")
                && matched.template().equals(RestApi.PREFIX + "/jobs");
        java.nio.file.Path jar = jarUpload ? JarUploads.receive(exchange.getRequestBody(),
                backend.configuration().get(io.duraflow.config.JobManagerOptions.ARTIFACT_MAX_SIZE).bytes()) : null;
        byte[] body = jarUpload ? new byte[0] : readBody(exchange);
        if (method.equals("POST") && !jarUpload && !type.startsWith("application/json")) {
            throw new RestException(415, "actions need 'Content-Type: application/json' (also with an empty body); a"
                    + " job's jar goes to POST " + RestApi.PREFIX + "/jobs as 'application/java-archive'");
        }
        Route.Call call = new Route.Call(params, query(exchange.getRequestURI().getRawQuery()), body, jar);
        CompletableFuture<Route.Reply> reply;
        try {
            reply = matched.handler().handle(call);
        } catch (RestException e) {
            reply = CompletableFuture.failedFuture(e);
        } catch (Exception e) {
            reply = CompletableFuture.failedFuture(e);
        }
        // The gateway completes on the JobManager's main thread: write the answer on ours.
        reply.whenCompleteAsync((answer, failure) -> {
            if (jar != null) {
                try {
                    java.nio.file.Files.deleteIfExists(jar);  // the JobManager keeps its own copy
                } catch (IOException e) {
                    LOG.warn("Cannot delete the uploaded jar {}: {}", jar, e.toString());
                }
            }
            if (failure == null) {
                send(exchange, answer);
            } else {
                sendFailure(exchange, Futures.unwrap(failure));
            }
        }, threads);
    }

    private void checkToken(HttpExchange exchange) {
        if (token == null) {
            return;
        }
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        String prefix = "Bearer ";
        boolean valid = header != null && header.regionMatches(true, 0, prefix, 0, prefix.length())
                && MessageDigest.isEqual(token, header.substring(prefix.length()).trim()
                        .getBytes(StandardCharsets.UTF_8));
        if (!valid) {
            throw new RestException(401, header == null ? "this JobManager needs a bearer token"
                    + " (rest.auth.token): send 'Authorization: Bearer <token>'" : "wrong bearer token");
        }
    }

    /** True if this JobManager leads and is ready; otherwise answers 307 or 503 and returns false. */
    private boolean leads(HttpExchange exchange) {
        Leadership leadership = backend.leadership();
        if (leadership instanceof Leadership.Leading) {
            return true;
        }
        if (leadership instanceof Leadership.Standby standby && !standby.leaderRestUrl().isEmpty()) {
            String location = standby.leaderRestUrl() + exchange.getRequestURI().getRawPath()
                    + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery());
            ObjectNode body = errorBody(307, "this JobManager stands by; the leader is at " + standby.leaderRestUrl(), "");
            body.putObject("leader").put("restUrl", standby.leaderRestUrl()).put("address", standby.leaderAddress());
            send(exchange, new Route.Reply(307, body, Map.of("Location", location)));
            return false;
        }
        String why = leadership instanceof Leadership.TakingOver
                ? "this JobManager is taking over as the leader; try again shortly"
                : "this JobManager stands by and no leader is known yet; try again shortly";
        sendError(exchange, 503, why, "", Map.of("Retry-After", "1"));
        return false;
    }

    private void serveAsset(HttpExchange exchange, String method, String path) throws IOException {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            sendError(exchange, 405, "method " + RestApi.oneLine(method) + " is not allowed on "
                    + RestApi.oneLine(path) + "; allowed: GET, HEAD", "", Map.of("Allow", "GET, HEAD"));
            return;
        }
        // A browser opening a standby's page goes to the leader's.
        if (path.equals("/") && backend.leadership() instanceof Leadership.Standby standby
                && !standby.leaderRestUrl().isEmpty()) {
            exchange.getResponseHeaders().set("Location", standby.leaderRestUrl() + "/");
            exchange.sendResponseHeaders(307, -1);
            exchange.close();
            return;
        }
        StaticAssets.Asset asset = assets.find(path);
        if (asset == null) {
            throw new RestException(404, "no such file: " + RestApi.oneLine(path));
        }
        var headers = exchange.getResponseHeaders();
        headers.set("Content-Type", asset.contentType());
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("Cache-Control", asset.immutable() ? "public, max-age=86400" : "no-cache");
        if (asset.contentType().startsWith("text/html")) {
            headers.set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:;"
                    + " style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'");
            headers.set("X-Frame-Options", "DENY");
        }
        if (method.equals("HEAD")) {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
            return;
        }
        exchange.sendResponseHeaders(200, asset.bytes().length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(asset.bytes());
        }
    }

    // ------------------------------------------------------------------ answers

    private void sendFailure(HttpExchange exchange, Throwable failure) {
        if (failure instanceof RestException e) {
            sendError(exchange, e.status(), e.getMessage(), e.field(), Map.of());
        } else if (failure instanceof StatusRuntimeException status) {
            int code = HttpStatuses.of(status.getStatus().getCode());
            String message = status.getStatus().getDescription() != null ? status.getStatus().getDescription()
                    : status.getStatus().getCode().name();
            sendError(exchange, code, message, "", code == 503 ? Map.of("Retry-After", "1") : Map.of());
        } else {
            LOG.warn("REST request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), failure);
            sendError(exchange, 500, "internal error: " + io.duraflow.rpc.Rpc.describe(failure), "", Map.of());
        }
    }

    private ObjectNode errorBody(int status, String message, String field) {
        ObjectNode body = json.createObjectNode().put("status", status).put("error", HttpStatuses.reason(status))
                .put("message", message);
        if (!field.isEmpty()) {
            body.put("field", field);
        }
        return body;
    }

    private void sendError(HttpExchange exchange, int status, String message, String field,
            Map<String, String> headers) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        if (status == 401) {
            all.put("WWW-Authenticate", "Bearer realm=\"duraflow\"");
        }
        send(exchange, new Route.Reply(status, errorBody(status, message, field), all));
    }

    private void send(HttpExchange exchange, Route.Reply reply) {
        try {
            byte[] bytes = serialize(reply.body());
            var headers = exchange.getResponseHeaders();
            headers.set("Content-Type", "application/json; charset=utf-8");
            headers.set("Cache-Control", "no-store");
            headers.set("X-Content-Type-Options", "nosniff");
            reply.headers().forEach(headers::set);
            exchange.sendResponseHeaders(reply.status(), exchange.getRequestMethod().equals("HEAD") ? -1 : bytes.length);
            if (!exchange.getRequestMethod().equals("HEAD")) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        } catch (IOException e) {
            LOG.debug("Cannot answer {} {}: {}", exchange.getRequestMethod(), exchange.getRequestURI(), e.toString());
        } finally {
            exchange.close();
        }
    }

    /** The last message serialized and its JSON: a published job status is asked for again and again. */
    private record Serialized(Message message, byte[] json) {}

    private volatile Serialized lastSerialized;

    private byte[] serialize(Object body) throws IOException {
        Serialized last = lastSerialized;
        if (last != null && last.message() == body) {
            return last.json();  // the very same message (not just an equal one): its JSON is the same
        }
        byte[] json = serializeNew(body);
        if (body instanceof Message message) {
            lastSerialized = new Serialized(message, json);
        }
        return json;
    }

    private byte[] serializeNew(Object body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try (JsonGenerator generator = json.getFactory().createGenerator(out)) {
            if (body instanceof Message message) {
                ProtoJson.write(message, generator);
            } else {
                json.writeValue(generator, body);
            }
        }
        return out.toByteArray();
    }

    // ------------------------------------------------------------------ helpers

    private static byte[] readBody(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
            if (body.length > MAX_BODY_BYTES) {
                throw new RestException(413, "the body is larger than " + MAX_BODY_BYTES + " bytes");
            }
            return body;
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> query = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return query;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String key = java.net.URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            query.put(key, value);
        }
        return query;
    }

    /** Whether a Host header names a loopback address: localhost, 127.x.x.x or [::1], with any port. */
    static boolean isLoopbackHost(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        String name = host.trim();
        if (name.startsWith("[")) {
            int end = name.indexOf(']');
            name = end < 0 ? name : name.substring(1, end);
        } else if (name.indexOf(':') >= 0 && name.indexOf(':') == name.lastIndexOf(':')) {
            name = name.substring(0, name.indexOf(':'));
        }
        if (name.equalsIgnoreCase("localhost") || name.toLowerCase(java.util.Locale.ROOT).endsWith(".localhost")) {
            return true;
        }
        if (!name.matches("[0-9.]+") && !name.contains(":")) {
            return false;  // another host name: never resolved here
        }
        try {
            return InetAddress.getByName(name).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
