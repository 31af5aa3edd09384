package io.duraflow.rest;

import io.duraflow.config.Configuration;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;

/**
 * What the REST API needs of the JobManager it runs in. It answers from the very gRPC service
 * that the command line calls ({@link DispatcherGatewayGrpc.AsyncService}, called in-process), so
 * both show the same facts from the same query code on the JobManager's main thread.
 */
public interface RestBackend {
    /** The JobManager's {@code DispatcherGateway} implementation. */
    DispatcherGatewayGrpc.AsyncService gateway();

    /** Where this JobManager stands now; any thread. */
    Leadership leadership();

    /** This JobManager's configuration (what {@code GET /v1/config} shows, secrets hidden). */
    Configuration configuration();
}
