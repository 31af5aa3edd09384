package io.duraflow.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Reads request bodies strictly: a wrong or unknown field is a 400 that names it. */
final class Bodies {
    private Bodies() {}

    /** The body as a JSON object; an empty body is an empty object unless {@code required}. */
    static JsonNode object(ObjectMapper json, byte[] body, boolean required) {
        if (body.length == 0 || new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            if (required) {
                throw RestException.badRequest("", "the request needs a JSON object as its body");
            }
            return json.createObjectNode();
        }
        JsonNode node;
        try {
            node = json.readTree(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw RestException.badRequest("", "the body is not JSON: " + RestApi.oneLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw RestException.badRequest("", "the body cannot be read: " + RestApi.oneLine(e.getMessage()));
        }
        if (node == null || !node.isObject()) {
            throw RestException.badRequest("", "the body must be a JSON object");
        }
        return node;
    }

    static void onlyFields(JsonNode object, Set<String> known, String prefix) {
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw RestException.badRequest(prefix + name, "unknown field '" + prefix + RestApi.oneLine(name) + "'"
                        + (known.isEmpty() ? ": this request takes no body fields"
                        : "; known: " + String.join(", ", new java.util.TreeSet<>(known))));
            }
        }
    }

    static String requiredString(JsonNode object, String name) {
        return requiredString(object, name, name);
    }

    static String requiredString(JsonNode object, String name, String field) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            throw RestException.badRequest(field, "'" + field + "' is required");
        }
        if (!value.isTextual() || value.asText().isBlank()) {
            throw RestException.badRequest(field, "'" + field + "' must be a non-empty string");
        }
        return value.asText();
    }

    static String optionalString(JsonNode object, String name, String otherwise) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return otherwise;
        }
        if (!value.isTextual()) {
            throw RestException.badRequest(name, "'" + name + "' must be a string");
        }
        return value.asText();
    }

    static int optionalInt(JsonNode object, String name, int otherwise) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return otherwise;
        }
        if (!value.isInt()) {
            throw RestException.badRequest(name, "'" + name + "' must be an integer");
        }
        return value.asInt();
    }

    static boolean optionalBoolean(JsonNode object, String name, String field) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw RestException.badRequest(field, "'" + field + "' must be true or false");
        }
        return value.asBoolean();
    }

    /** An object of string values (numbers and booleans are taken as their text). */
    static Map<String, String> stringMap(JsonNode object, String name) {
        JsonNode value = object.get(name);
        Map<String, String> map = new LinkedHashMap<>();
        if (value == null || value.isNull()) {
            return map;
        }
        if (!value.isObject()) {
            throw RestException.badRequest(name, "'" + name + "' must be an object of strings");
        }
        for (Iterator<Map.Entry<String, JsonNode>> fields = value.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (!field.getValue().isValueNode() || field.getValue().isNull()) {
                throw RestException.badRequest(name + "." + field.getKey(), "'" + name + "."
                        + RestApi.oneLine(field.getKey()) + "' must be a string");
            }
            map.put(field.getKey(), field.getValue().asText());
        }
        return map;
    }
}
