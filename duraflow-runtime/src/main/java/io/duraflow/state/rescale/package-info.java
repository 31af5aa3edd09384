/**
 * Which instance restores which state when a job is restored, also with another parallelism: a
 * pure function of the checkpoint's handles ({@link io.duraflow.state.rescale.StateRedistributor}).
 */
package io.duraflow.state.rescale;
