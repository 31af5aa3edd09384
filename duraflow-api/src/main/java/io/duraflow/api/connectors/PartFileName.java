package io.duraflow.api.connectors;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of the files a {@link FileSink} writes:
 * <pre>
 *   in progress   .part-&lt;subtask&gt;-&lt;job&gt;-&lt;writer&gt;-&lt;n&gt;.inprogress
 *   committed     part-&lt;subtask&gt;-&lt;job&gt;-&lt;writer&gt;-&lt;n&gt;
 * </pre>
 * {@code subtask}: the writer's subtask index (decimal); {@code job}: 16 hex digits of the SHA-256
 * of the job id, so a cleanup touches only its own job's files when several jobs write into one
 * directory; {@code writer}: a random UUID (32 hex digits) per writer, so no two attempts, jobs or
 * restarts ever produce the same name; {@code n}: the writer's part number, from 0. In-progress
 * names start with '.', so file sources (and most tools) ignore them until they are committed.
 */
record PartFileName(int subtask, String jobTag, String writerId, long partNumber) {
    private static final Pattern IN_PROGRESS =
            Pattern.compile("\\.part-(\\d{1,9})-([0-9a-f]{16})-([0-9a-f]{32})-(\\d{1,18})\\.inprogress");

    PartFileName {
        if (subtask < 0 || partNumber < 0) {
            throw new IllegalArgumentException("bad part file name: subtask " + subtask + ", part " + partNumber);
        }
    }

    /** The 16 hex digits that stand for {@code jobId} in names. */
    static String jobTag(String jobId) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(jobId.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** A fresh writer id: a random UUID as 32 hex digits. */
    static String newWriterId() {
        UUID uuid = UUID.randomUUID();
        return HexFormat.of().toHexDigits(uuid.getMostSignificantBits())
                + HexFormat.of().toHexDigits(uuid.getLeastSignificantBits());
    }

    String inProgressName() {
        return "." + finalName() + ".inprogress";
    }

    String finalName() {
        return "part-" + subtask + "-" + jobTag + "-" + writerId + "-" + partNumber;
    }

    /** The parts of an in-progress name, or null if {@code name} is not one. */
    static PartFileName parseInProgress(String name) {
        Matcher m = IN_PROGRESS.matcher(name);
        if (!m.matches()) {
            return null;
        }
        return new PartFileName(Integer.parseInt(m.group(1)), m.group(2), m.group(3), Long.parseLong(m.group(4)));
    }
}
