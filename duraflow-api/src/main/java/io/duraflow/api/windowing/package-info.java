/**
 * Windows: assigners (tumbling, sliding, session, global), triggers and window functions, and the
 * window operator, a keyed process function whose contents and timers are keyed state. See
 * {@code io.duraflow.api.WindowedFlow}.
 */
package io.duraflow.api.windowing;
