package io.duraflow.jobstore;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.duraflow.fs.FsPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.zip.CRC32C;

/**
 * The versioned, checksummed JSON envelope of every store file (format name, version, CRC32C of the
 * payload's canonical bytes). See docs/design/job-result-store.md#storefileformat.
 */
final class StoreFileFormat {
    static final StoreFileFormat JOB_RESULT = new StoreFileFormat("job result", "duraflow-job-result", "result");
    static final StoreFileFormat JOB_GRAPH = new StoreFileFormat("job graph", "duraflow-job-graph", "job");

    static final int VERSION = 1;

    /**
     * Collected results are stored base64 in the JSON (up to collect.max-bytes, 64 MiB by
     * default), far beyond Jackson's default 20 MB string limit, so the limit is lifted here.
     */
    static final ObjectMapper MAPPER = JsonMapper.builder(com.fasterxml.jackson.core.JsonFactory.builder()
                    .streamReadConstraints(com.fasterxml.jackson.core.StreamReadConstraints.builder()
                            .maxStringLength(Integer.MAX_VALUE).build())
                    .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** Used in messages: {@code corrupt <kind> file ...}. */
    private final String kind;
    private final String formatName;
    private final String payloadField;

    private StoreFileFormat(String kind, String formatName, String payloadField) {
        this.kind = kind;
        this.formatName = formatName;
        this.payloadField = payloadField;
    }

    String kind() {
        return kind;
    }

    /** The file contents for a payload: the envelope, indented for people who read it, ending in a newline. */
    byte[] encode(ObjectNode payload) {
        ObjectNode canonical = (ObjectNode) canonical(payload);
        ObjectNode envelope = MAPPER.createObjectNode();
        envelope.put("format", formatName);
        envelope.put("version", VERSION);
        envelope.put("checksum", checksum(canonical));
        envelope.set(payloadField, canonical);
        try {
            String text = MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(envelope) + "\n";
            return text.getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write a JSON tree", e);
        }
    }

    /**
     * The payload of a file's contents.
     *
     * @param file named in the exception
     * @throws CorruptStoreFileException if the contents are not a valid envelope of this format
     */
    ObjectNode decode(FsPath file, byte[] bytes) throws CorruptStoreFileException {
        if (bytes.length == 0) {
            throw corrupt(file, "empty file");
        }
        JsonNode root;
        try {
            root = MAPPER.readTree(bytes);
        } catch (IOException e) {
            String message = e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
            throw corrupt(file, "not valid JSON (truncated?): " + oneLine(message));
        }
        if (root == null || !root.isObject()) {
            throw corrupt(file, "not a JSON object");
        }
        JsonNode format = root.get("format");
        if (format == null || !format.isTextual() || !format.asText().equals(formatName)) {
            throw corrupt(file, "format is " + format + ", expected \"" + formatName + "\"");
        }
        JsonNode version = root.get("version");
        if (version == null || !version.isIntegralNumber()) {
            throw corrupt(file, "no integer 'version'");
        }
        if (!version.canConvertToInt() || version.intValue() != VERSION) {
            throw corrupt(file, "unsupported format version " + version
                    + "; this version of Duraflow reads version " + VERSION);
        }
        JsonNode checksum = root.get("checksum");
        if (checksum == null || !checksum.isTextual()) {
            throw corrupt(file, "no 'checksum'");
        }
        JsonNode payload = root.get(payloadField);
        if (payload == null || !payload.isObject()) {
            throw corrupt(file, "no '" + payloadField + "' object");
        }
        String actual = checksum(canonical(payload));
        if (!actual.equals(checksum.asText().toLowerCase(Locale.ROOT))) {
            throw corrupt(file, "checksum mismatch: the file says " + checksum.asText()
                    + " but its '" + payloadField + "' hashes to " + actual);
        }
        return (ObjectNode) payload;
    }

    /**
     * The payload of a file's contents as {@code fromJson} reads it; a payload it rejects (with an
     * {@link IllegalArgumentException}, or a {@link NullPointerException} for a missing field)
     * makes the file corrupt too.
     *
     * @throws CorruptStoreFileException if the envelope or the payload is invalid
     */
    <T> T decode(FsPath file, byte[] bytes, Function<ObjectNode, T> fromJson) throws CorruptStoreFileException {
        try {
            return fromJson.apply(decode(file, bytes));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw corrupt(file, String.valueOf(e.getMessage()));
        }
    }

    CorruptStoreFileException corrupt(FsPath file, String reason) {
        return new CorruptStoreFileException(kind, file, reason);
    }

    /** CRC32C of the canonical bytes of a payload already in canonical member order. */
    static String checksum(JsonNode canonicalPayload) {
        CRC32C crc = new CRC32C();
        try {
            crc.update(MAPPER.writeValueAsBytes(canonicalPayload));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write a JSON tree", e);
        }
        return String.format(Locale.ROOT, "%08x", crc.getValue());
    }

    /** A copy of the node whose objects, at every depth, have their members sorted by key. */
    static JsonNode canonical(JsonNode node) {
        if (node.isObject()) {
            List<String> names = new ArrayList<>();
            node.fieldNames().forEachRemaining(names::add);
            names.sort(null);
            ObjectNode sorted = MAPPER.createObjectNode();
            for (String name : names) {
                sorted.set(name, canonical(node.get(name)));
            }
            return sorted;
        }
        if (node.isArray()) {
            ArrayNode copy = MAPPER.createArrayNode();
            for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
                copy.add(canonical(it.next()));
            }
            return copy;
        }
        return node;
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.replace("\r", "\\r").replace("\n", "\\n");
    }
}
