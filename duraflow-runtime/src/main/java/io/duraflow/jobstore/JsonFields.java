package io.duraflow.jobstore;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Strict reading of payload fields: a missing field or a value of the wrong type is an
 * {@link IllegalArgumentException} whose message names the field's path, e.g. {@code
 * result.vertices[1].recordsIn: expected an integer, found "12"}. Unknown fields are ignored so
 * that a later version may add optional ones.
 */
final class JsonFields {
    private final JsonNode object;
    private final String path;

    private JsonFields(JsonNode object, String path) {
        this.object = object;
        this.path = path;
    }

    /** Fields of {@code object}, which is reported as {@code path} in messages. */
    static JsonFields of(JsonNode object, String path) {
        if (object == null || !object.isObject()) {
            throw new IllegalArgumentException(path + ": expected an object, found " + describe(object));
        }
        return new JsonFields(object, path);
    }

    String text(String field) {
        JsonNode value = required(field);
        if (!value.isTextual()) {
            throw wrongType(field, "a string", value);
        }
        return value.textValue();
    }

    long int64(String field) {
        return int64(required(field), path + "." + field);
    }

    int int32(String field) {
        JsonNode value = required(field);
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw wrongType(field, "a 32-bit integer", value);
        }
        return value.intValue();
    }

    byte[] base64(String field) {
        String text = text(field);
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(path + "." + field + ": not base64: " + e.getMessage());
        }
    }

    <E extends Enum<E>> E enumValue(String field, Class<E> type) {
        String text = text(field);
        try {
            return Enum.valueOf(type, text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(path + "." + field + ": unknown " + type.getSimpleName() + " \"" + text
                    + "\"");
        }
    }

    Map<String, String> stringMap(String field) {
        return map(field, (value, where) -> {
            if (!value.isTextual()) {
                throw new IllegalArgumentException(where + ": expected a string, found " + describe(value));
            }
            return value.textValue();
        });
    }

    Map<String, Long> longMap(String field) {
        return map(field, JsonFields::int64);
    }

    /** The elements of an array of objects, each read by {@code reader}. */
    <T> List<T> list(String field, Function<JsonFields, T> reader) {
        JsonNode value = required(field);
        if (!value.isArray()) {
            throw wrongType(field, "an array", value);
        }
        List<T> items = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            items.add(reader.apply(of(value.get(i), path + "." + field + "[" + i + "]")));
        }
        return items;
    }

    /** An array of 32-bit integers that older versions did not write: empty if absent. */
    List<Integer> optionalIntList(String field) {
        JsonNode value = object.get(field);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw wrongType(field, "an array", value);
        }
        List<Integer> items = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            if (!item.isIntegralNumber() || !item.canConvertToInt()) {
                throw new IllegalArgumentException(path + "." + field + "[" + i + "]: expected a 32-bit integer, found "
                        + describe(item));
            }
            items.add(item.intValue());
        }
        return items;
    }

    private interface ValueReader<V> {
        V read(JsonNode value, String where);
    }

    private <V> Map<String, V> map(String field, ValueReader<V> reader) {
        JsonNode value = required(field);
        if (!value.isObject()) {
            throw wrongType(field, "an object", value);
        }
        Map<String, V> map = new LinkedHashMap<>();
        value.properties().forEach(e -> map.put(e.getKey(),
                reader.read(e.getValue(), path + "." + field + "." + e.getKey())));
        return map;
    }

    private static long int64(JsonNode value, String where) {
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException(where + ": expected a 64-bit integer, found " + describe(value));
        }
        return value.longValue();
    }

    private JsonNode required(String field) {
        JsonNode value = object.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException(path + "." + field + ": missing");
        }
        return value;
    }

    private IllegalArgumentException wrongType(String field, String expected, JsonNode found) {
        return new IllegalArgumentException(path + "." + field + ": expected " + expected + ", found "
                + describe(found));
    }

    private static String describe(JsonNode node) {
        if (node == null) {
            return "nothing";
        }
        String text = node.toString();
        return text.length() > 40 ? text.substring(0, 40) + "..." : text;
    }
}
