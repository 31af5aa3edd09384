package io.duraflow.cli.demo;

import io.duraflow.cli.LocalCluster;

/**
 * While a demo runs, Ctrl-C (or SIGTERM) must not leave its processes running: a shutdown hook
 * that stops the cluster, removed when the demo stopped it itself.
 */
final class StopOnExit implements AutoCloseable {
    private final Thread hook;

    StopOnExit(LocalCluster cluster) {
        hook = new Thread(() -> {
            try {
                cluster.stop();
            } catch (Exception ignored) {
                // exiting anyway
            }
        }, "stop-demo-cluster");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs
        }
    }
}
