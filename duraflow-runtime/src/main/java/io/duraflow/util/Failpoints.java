package io.duraflow.util;

import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Named points where failure tests stop a process on purpose. A process started with
 * {@code -Dduraflow.failpoints=name1,name2} logs {@code FAILPOINT <name> reached} when it gets
 * to one of them and then blocks that thread for good, so a test can SIGKILL it at exactly that
 * moment. Without the property every call is a no-op.
 */
public final class Failpoints {
    private static final Logger LOG = LoggerFactory.getLogger(Failpoints.class);
    private static final Set<String> ACTIVE = Set.of(System.getProperty("duraflow.failpoints", "").split(","));

    private Failpoints() {}

    public static void hit(String name) {
        if (!ACTIVE.contains(name)) {
            return;
        }
        LOG.warn("FAILPOINT {} reached; this thread stops here", name);
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
