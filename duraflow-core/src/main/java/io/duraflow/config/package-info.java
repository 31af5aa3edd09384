/**
 * Typed configuration.
 *
 * <pre>
 *   holder classes            ConfigRegistry             ConfigLoader
 *   (ClusterOptions, ...) --> known options by key <-- conf/duraflow.yaml + -Dkey=value
 *   public static final            |                           |
 *   ConfigOption fields            v                           v
 *                             lookup(key) ------------> Configuration --get(option)--> typed value
 *                                                             |
 *                                                        toMap() --> -Dkey=value for child processes
 * </pre>
 *
 * <p>Every value has a text form ({@link io.duraflow.config.ConfigType}): durations like
 * {@code 500 ms} or {@code 5 min} ({@link io.duraflow.config.Durations}), memory sizes like
 * {@code 64 mb} ({@link io.duraflow.config.MemorySize}), enums in lower case with dashes. Keys and
 * values are checked when they enter a {@link io.duraflow.config.Configuration}; an unknown key or
 * invalid value is an {@link io.duraflow.config.IllegalConfigurationException} with a one-line
 * message that says where it came from and what is expected.
 */
package io.duraflow.config;
