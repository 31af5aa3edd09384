package io.duraflow.rest;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One operation of the API: a method and a path template such as {@code /v1/jobs/{jobId}}, whose
 * {@code {name}} segments match one path segment each.
 *
 * @param leaderOnly whether only the leader answers it (a standby redirects): everything about
 *     the cluster and its jobs; not this JobManager's own configuration or the API's document
 */
record Route(String method, String template, boolean leaderOnly, Handler handler) {

    /** Answers a request; may complete later (the JobManager answers on its main thread). */
    interface Handler {
        CompletableFuture<Reply> handle(Call call) throws Exception;
    }

    /**
     * A request that matched a route.
     *
     * @param jar a job's jar posted as {@code application/java-archive} (then {@code body} is empty), or null
     */
    record Call(Map<String, String> pathParams, Map<String, String> query, byte[] body, java.nio.file.Path jar) {
        Call(Map<String, String> pathParams, Map<String, String> query, byte[] body) {
            this(pathParams, query, body, null);
        }

        String param(String name) {
            return pathParams.get(name);
        }
    }

    /** An answer: status, body (a protobuf message, a Jackson tree or null) and extra headers. */
    record Reply(int status, Object body, Map<String, String> headers) {
        static Reply ok(Object body) {
            return new Reply(200, body, Map.of());
        }
    }

    /** The path parameters if {@code path} (raw, still percent-encoded) matches the template, else null. */
    Map<String, String> match(String path) {
        String[] want = template.split("/", -1);
        String[] got = path.split("/", -1);
        if (want.length != got.length) {
            return null;
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < want.length; i++) {
            if (want[i].startsWith("{") && want[i].endsWith("}")) {
                if (got[i].isEmpty()) {
                    return null;
                }
                params.put(want[i].substring(1, want[i].length() - 1), URLDecoder.decode(got[i], StandardCharsets.UTF_8));
            } else if (!want[i].equals(got[i])) {
                return null;
            }
        }
        return params;
    }
}
