package io.duraflow.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP client for REST tests: one call, its status, headers and JSON body. */
final class Http {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An answer: status, the JSON body (a missing node if it was empty) and the raw response. */
    record Answer(int status, JsonNode json, HttpResponse<String> response) {
        String header(String name) {
            return response.headers().firstValue(name).orElse(null);
        }
    }

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final String baseUrl;
    private String token;

    Http(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    Http withToken(String bearer) {
        Http other = new Http(baseUrl);
        other.token = bearer;
        return other;
    }

    Answer get(String path) {
        return send("GET", path, null, null);
    }

    Answer post(String path, String body) {
        return send("POST", path, body, "application/json");
    }

    Answer send(String method, String path, String body, String contentType) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            String text = response.body();
            boolean isJson = response.headers().firstValue("Content-Type").orElse("").startsWith("application/json");
            JsonNode json = isJson && !text.isEmpty() ? JSON.readTree(text) : JSON.missingNode();
            return new Answer(response.statusCode(), json, response);
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
