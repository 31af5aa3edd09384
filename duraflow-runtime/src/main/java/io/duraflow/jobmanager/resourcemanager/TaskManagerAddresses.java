package io.duraflow.jobmanager.resourcemanager;

/**
 * Checks of the address a TaskManager registers with: {@code host:port}, and reachable from the
 * JobManager. A TaskManager whose address fails is refused before anything is registered, since
 * every deployment to it would fail.
 */
public final class TaskManagerAddresses {
    private TaskManagerAddresses() {
    }

    /**
     * Checks that a registering TaskManager's address is host:port and accepts a TCP connection
     * within {@code timeoutMs}: an address the JobManager cannot reach would take slots whose
     * deployments all fail. Blocks for up to the timeout, so never on the main thread.
     *
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT naming the address and what to fix
     */
    public static void check(String tmId, String address, long timeoutMs) {
        int port = port(tmId, address);
        java.net.InetSocketAddress target = new java.net.InetSocketAddress(
                address.substring(0, address.lastIndexOf(':')), port);
        if (target.isUnresolved()) {
            throw refusal(tmId, address, "its host does not resolve");
        }
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(target, (int) timeoutMs);
        } catch (java.io.IOException e) {
            throw refusal(tmId, address, "the JobManager cannot connect to it (" + e.getMessage() + ")");
        }
    }

    /** The port of a host:port address (syntax only: no name lookup, so fine on the main thread). */
    static int port(String tmId, String address) {
        int colon = address.lastIndexOf(':');
        int port = -1;
        if (colon > 0) {
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (port < 1 || port > 65535) {
            throw refusal(tmId, address, "it is not host:port");
        }
        return port;
    }

    private static io.grpc.StatusRuntimeException refusal(String tmId, String address, String why) {
        return io.grpc.Status.INVALID_ARGUMENT.withDescription("TaskManager " + tmId + " advertises address '"
                + address + "', but " + why + "; set taskmanager.rpc.address to a host or IP the JobManager can"
                + " reach").asRuntimeException();
    }
}
