/** Picks the state backend that {@code state.backend.type} names. */
package io.duraflow.state.loader;
