package io.duraflow.rpc;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;

/** Starts gRPC servers with a clear error when the port is taken. */
public final class RpcServers {
    private RpcServers() {}

    /** Thrown when a server cannot bind; the message says which address and what to do. */
    public static final class BindFailedException extends RuntimeException {
        public BindFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    public static Server start(String host, int port, String optionKey, BindableService... services) {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
                .maxInboundMessageSize(Rpc.MAX_MESSAGE_BYTES);
        for (BindableService service : services) {
            builder.addService(service);
        }
        try {
            return builder.build().start();
        } catch (IOException e) {
            Throwable cause = e;
            // Netty's native transport reports a taken port as its own IOException, not BindException.
            while (cause != null && !(cause instanceof BindException)
                    && !String.valueOf(cause.getMessage()).contains("Address already in use")) {
                cause = cause.getCause();
            }
            if (cause != null) {
                throw new BindFailedException("port " + port + " on " + host + " is already in use; stop what uses it"
                        + " or choose another port with -D" + optionKey + "=<port>", e);
            }
            throw new BindFailedException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }
}
