package io.duraflow.rest;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MapEntry;
import com.google.protobuf.Message;
import java.io.IOException;
import java.util.Base64;
import java.util.List;

/**
 * The REST API's JSON form of the gRPC messages, so that REST and the CLI show the same facts
 * from the same answers. It differs from protobuf's canonical JSON mapping where that mapping is
 * awkward for a browser: 64-bit integers are JSON numbers (not strings; every count and time
 * here is far below 2^53), and every scalar field is written, also when it holds its default
 * (0, "", false, []), so a client never has to know protobuf defaults. Field names are the
 * descriptors' JSON names (lowerCamelCase); enums are their names; bytes base64; a message field
 * that is not set is left out (e.g. a vertex without rates). {@link #schema} describes the same
 * shapes as OpenAPI schemas, from the same descriptors, so the document cannot drift from them.
 */
final class ProtoJson {
    private ProtoJson() {}

    static void write(Message message, JsonGenerator json) throws IOException {
        json.writeStartObject();
        Descriptor descriptor = message.getDescriptorForType();
        for (FieldDescriptor field : descriptor.getFields()) {
            if (field.getType() == FieldDescriptor.Type.MESSAGE && !field.isRepeated() && !message.hasField(field)) {
                continue;
            }
            json.writeFieldName(field.getJsonName());
            Object value = message.getField(field);
            if (field.isMapField()) {
                writeMap(field, (List<?>) value, json);
            } else if (field.isRepeated()) {
                json.writeStartArray();
                for (Object element : (List<?>) value) {
                    writeValue(field, element, json);
                }
                json.writeEndArray();
            } else {
                writeValue(field, value, json);
            }
        }
        json.writeEndObject();
    }

    private static void writeMap(FieldDescriptor field, List<?> entries, JsonGenerator json) throws IOException {
        FieldDescriptor valueField = field.getMessageType().findFieldByName("value");
        json.writeStartObject();
        for (Object entry : entries) {
            MapEntry<?, ?> mapEntry = (MapEntry<?, ?>) entry;
            json.writeFieldName(String.valueOf(mapEntry.getKey()));
            writeValue(valueField, mapEntry.getValue(), json);
        }
        json.writeEndObject();
    }

    private static void writeValue(FieldDescriptor field, Object value, JsonGenerator json) throws IOException {
        switch (field.getJavaType()) {
            case INT -> json.writeNumber((Integer) value);
            case LONG -> json.writeNumber((Long) value);
            case FLOAT -> writeDouble((Float) value, json);
            case DOUBLE -> writeDouble((Double) value, json);
            case BOOLEAN -> json.writeBoolean((Boolean) value);
            case STRING -> json.writeString((String) value);
            case BYTE_STRING -> json.writeString(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
            case ENUM -> json.writeString(((EnumValueDescriptor) value).getName());
            case MESSAGE -> write((Message) value, json);
        }
    }

    /** NaN and infinities are not JSON: written as null. */
    private static void writeDouble(double value, JsonGenerator json) throws IOException {
        if (Double.isFinite(value)) {
            json.writeNumber(value);
        } else {
            json.writeNull();
        }
    }

    /**
     * Adds an OpenAPI schema for {@code type} and every message type it contains to {@code schemas},
     * under their message names; references between them are {@code #/components/schemas/<name>}.
     */
    static void schema(Descriptor type, ObjectNode schemas) {
        if (schemas.has(type.getName())) {
            return;
        }
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        ObjectNode schema = schemas.putObject(type.getName());
        schema.put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        ArrayNode required = nodes.arrayNode();
        for (FieldDescriptor field : type.getFields()) {
            ObjectNode property;
            if (field.isMapField()) {
                property = nodes.objectNode().put("type", "object");
                property.set("additionalProperties", scalarOrRef(field.getMessageType().findFieldByName("value"),
                        schemas));
            } else if (field.isRepeated()) {
                property = nodes.objectNode().put("type", "array");
                property.set("items", scalarOrRef(field, schemas));
            } else {
                property = scalarOrRef(field, schemas);
            }
            properties.set(field.getJsonName(), property);
            if (!(field.getType() == FieldDescriptor.Type.MESSAGE && !field.isRepeated())) {
                required.add(field.getJsonName());
            }
        }
        if (!required.isEmpty()) {
            schema.set("required", required);
        }
    }

    private static ObjectNode scalarOrRef(FieldDescriptor field, ObjectNode schemas) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        switch (field.getJavaType()) {
            case INT -> node.put("type", "integer").put("format", "int32");
            case LONG -> node.put("type", "integer").put("format", "int64");
            case FLOAT, DOUBLE -> node.put("type", "number");
            case BOOLEAN -> node.put("type", "boolean");
            case STRING -> node.put("type", "string");
            case BYTE_STRING -> node.put("type", "string").put("format", "byte");
            case ENUM -> {
                node.put("type", "string");
                ArrayNode values = node.putArray("enum");
                field.getEnumType().getValues().forEach(v -> values.add(v.getName()));
            }
            case MESSAGE -> {
                schema(field.getMessageType(), schemas);
                node.put("$ref", "#/components/schemas/" + field.getMessageType().getName());
            }
        }
        return node;
    }
}
