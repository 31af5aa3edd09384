package io.duraflow.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a running JVM holds in metaspace right after a full GC, read from outside with {@code jcmd
 * <pid> GC.run} then {@code VM.metaspace} (one attach; the children run without perf data, so
 * {@code jstat} and {@code PerfCounter.print} cannot see them). {@code VM.metaspace}'s first line,
 * <pre>
 *   Total Usage - 36 loaders, 2492 classes (909 shared):
 * </pre>
 * counts the classes defined now (loaded minus unloaded, hidden classes of lambdas included) and
 * the class loader data (one per loader, and one per non-strong hidden class); the line below it
 * that starts with {@code Both:} has the bytes used. GC.run is a full collection with the serial
 * collector the children run, which unloads the classes of every loader no longer reachable.
 *
 * @param classes classes defined in the JVM
 * @param loaders class loader data in the JVM
 * @param metaspaceUsedBytes metaspace in use (class space and the rest)
 */
record ClassCensus(long classes, long loaders, long metaspaceUsedBytes) {
    private static final Pattern TOTAL = Pattern.compile("Total Usage - (\\d+) loaders?, (\\d+) class(?:es)?");
    private static final Pattern USED = Pattern.compile("Both:.*?([\\d.]+) KB \\([^)]*\\) used");

    /**
     * Forces a full GC in each process, then counts; the jcmd commands run side by side.
     * {@code scratch} is a directory for their command file and output.
     */
    static Map<String, ClassCensus> afterFullGc(Map<String, Long> pids, Path scratch)
            throws IOException, InterruptedException {
        Path commands = Files.writeString(Files.createTempFile(scratch, "jcmd-", ".txt"),
                "GC.run\nVM.metaspace scale=KB\n", StandardCharsets.UTF_8);
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Map<String, Process> running = new LinkedHashMap<>();
        Map<String, Path> outputs = new LinkedHashMap<>();
        for (Map.Entry<String, Long> pid : pids.entrySet()) {
            Path output = Files.createTempFile(scratch, "jcmd-", ".out");
            outputs.put(pid.getKey(), output);
            running.put(pid.getKey(), ChildJvm.track(new ProcessBuilder(List.of(jcmd, Long.toString(pid.getValue()),
                    "-f", commands.toString())).redirectErrorStream(true).redirectOutput(output.toFile()).start()));
        }
        Map<String, ClassCensus> census = new LinkedHashMap<>();
        for (Map.Entry<String, Process> process : running.entrySet()) {
            long pid = pids.get(process.getKey());
            if (!process.getValue().waitFor(60, TimeUnit.SECONDS)) {
                process.getValue().destroyForcibly().waitFor();
                throw new AssertionError("jcmd " + pid + " did not answer within 60 s");
            }
            Path output = outputs.get(process.getKey());
            census.put(process.getKey(), parse(pid, process.getValue().exitValue(),
                    Files.readString(output, StandardCharsets.UTF_8)));
            Files.delete(output);
        }
        Files.delete(commands);
        return census;
    }

    static ClassCensus parse(long pid, int exitCode, String text) {
        Matcher total = TOTAL.matcher(text);
        if (exitCode != 0 || !total.find()) {
            throw new AssertionError("jcmd " + pid + " GC.run + VM.metaspace exited with " + exitCode
                    + " and printed no 'Total Usage' line:\n" + text);
        }
        Matcher used = USED.matcher(text);
        if (!used.find(total.end())) {
            throw new AssertionError("jcmd " + pid + " VM.metaspace printed no 'Both: ... used' line:\n" + text);
        }
        return new ClassCensus(Long.parseLong(total.group(2)), Long.parseLong(total.group(1)),
                Math.round(Double.parseDouble(used.group(1)) * 1024));
    }

    /** Growth since {@code baseline}: e.g. "classes 9412 -> 9420 (+8), loaders 61 -> 61 (+0), metaspace 52.1 -> 52.2 MiB (+0.1)". */
    String since(ClassCensus baseline) {
        return String.format("classes %d -> %d (%+d), loaders %d -> %d (%+d), metaspace %.1f -> %.1f MiB (%+.2f)",
                baseline.classes, classes, classes - baseline.classes, baseline.loaders, loaders,
                loaders - baseline.loaders, mib(baseline.metaspaceUsedBytes), mib(metaspaceUsedBytes),
                mib(metaspaceUsedBytes - baseline.metaspaceUsedBytes));
    }

    private static double mib(long bytes) {
        return bytes / (double) (1 << 20);
    }
}
