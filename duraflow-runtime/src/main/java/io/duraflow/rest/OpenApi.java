package io.duraflow.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Descriptors.Descriptor;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobEvents;
import io.duraflow.rpc.proto.JobList;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobResponse;
import io.duraflow.rpc.proto.TriggerSavepointResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The API's OpenAPI 3 document, served at {@code /v1/openapi.json}: its paths, parameters, request
 * bodies and error answers are written by hand in {@code openapi.json} next to this class; the
 * schemas of the answers that are gRPC messages are generated from their descriptors
 * ({@link ProtoJson#schema}), so they are always the shapes the API writes.
 */
final class OpenApi {
    static final String RESOURCE = "openapi.json";
    /** The messages whose schemas the document refers to as {@code #/components/schemas/<name>}. */
    private static final List<Descriptor> MESSAGES = List.of(JobStatus.getDescriptor(), JobList.getDescriptor(),
            JobResult.getDescriptor(), JobCheckpoints.getDescriptor(), JobEvents.getDescriptor(),
            ClusterOverview.getDescriptor(), SubmitJobResponse.getDescriptor(),
            TriggerSavepointResponse.getDescriptor());

    private final ObjectNode document;

    OpenApi(ObjectMapper json) {
        try (InputStream in = OpenApi.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            document = (ObjectNode) json.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        ObjectNode schemas = document.withObjectProperty("components").withObjectProperty("schemas");
        for (Descriptor message : MESSAGES) {
            ProtoJson.schema(message, schemas);
        }
    }

    /** The whole document; callers must not change it. */
    ObjectNode document() {
        return document;
    }
}
