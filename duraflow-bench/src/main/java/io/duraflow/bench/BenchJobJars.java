package io.duraflow.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Jobs' jars for {@link JarDistributionBenchmark}, built while it runs: the job {@value #JOB_CLASS}
 * compiled here against this JVM's class path (duraflow-api among it), so no cluster process has
 * it on its class path and every one must load it from the jar, plus a resource of random bytes,
 * stored uncompressed (random bytes do not compress, and deflating them would only cost time), to
 * give the jar its size. Each jar gets bytes of its own seed, so no two share a SHA-256 and no
 * process finds one in its cache.
 */
final class BenchJobJars {
    static final String JOB_CLASS = "com.example.jarbench.DoubleNumbers";
    /** The name of the collect operator of {@value #JOB_CLASS}. */
    static final String RESULT = "doubled";

    private static final String JOB_SOURCE = """
            package com.example.jarbench;

            import io.duraflow.api.DuraflowJob;
            import io.duraflow.api.JobBuilder;
            import io.duraflow.api.JobParameters;
            import io.duraflow.api.connectors.SequenceSource;
            import io.duraflow.api.types.Types;

            /** Numbers 0..n-1 in 4 splits, each doubled by a class of this jar, collected as "doubled". */
            public final class DoubleNumbers implements DuraflowJob {
                @Override
                public void build(JobBuilder job, JobParameters params) {
                    long n = params.getLong("n", 100000);
                    job.fromSource("numbers", new SequenceSource(0, n, 4))
                            .map(Twice::of, Types.LONG)
                            .collect("doubled");
                }
            }
            """;
    private static final String HELPER_SOURCE = """
            package com.example.jarbench;

            public final class Twice {
                private Twice() {}

                public static long of(long x) {
                    return 2 * x;
                }
            }
            """;

    private final Path directory;
    private final Path classes;

    private BenchJobJars(Path directory, Path classes) {
        this.directory = directory;
        this.classes = classes;
    }

    /** Compiles the job into {@code directory}, where the jars go too. */
    static BenchJobJars compile(Path directory) throws IOException {
        Path sources = Files.createDirectories(directory.resolve("src/com/example/jarbench"));
        Path classes = Files.createDirectories(directory.resolve("classes"));
        Path job = Files.writeString(sources.resolve("DoubleNumbers.java"), JOB_SOURCE, StandardCharsets.UTF_8);
        Path helper = Files.writeString(sources.resolve("Twice.java"), HELPER_SOURCE, StandardCharsets.UTF_8);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        if (compiler == null) {
            throw new IllegalStateException("this JVM has no Java compiler (a JRE?): the benchmark compiles its job");
        }
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int exit = compiler.run(null, errors, errors, "-d", classes.toString(), "-classpath",
                System.getProperty("java.class.path"), "--release", "17", "-nowarn", job.toString(), helper.toString());
        if (exit != 0) {
            throw new IllegalStateException("the benchmark's job does not compile:\n"
                    + errors.toString(StandardCharsets.UTF_8));
        }
        return new BenchJobJars(directory, classes);
    }

    /**
     * A jar {@code name} with the job's classes and {@code payloadBytes} random bytes from {@code
     * seed} as the resource {@code payload.bin}.
     */
    Path build(String name, long payloadBytes, long seed) throws IOException {
        Path jar = directory.resolve(name);
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Duraflow-Job-Class", JOB_CLASS);
        List<Path> classFiles;
        try (Stream<Path> walk = Files.walk(classes)) {
            classFiles = new ArrayList<>(walk.filter(Files::isRegularFile).sorted().toList());
        }
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            for (Path path : classFiles) {
                out.putNextEntry(new JarEntry(classes.relativize(path).toString().replace('\\', '/')));
                Files.copy(path, out);
                out.closeEntry();
            }
            writePayload(out, payloadBytes, seed);
        }
        return jar;
    }

    /**
     * A STORED entry needs its size and CRC before its bytes: the bytes are generated twice from the
     * same seed, once for the CRC and once to write, so the payload never sits in memory whole.
     */
    private static void writePayload(JarOutputStream out, long bytes, long seed) throws IOException {
        byte[] block = new byte[1 << 20];
        CRC32 crc = new CRC32();
        SplittableRandom random = new SplittableRandom(seed);
        for (long left = bytes; left > 0; left -= block.length) {
            int n = fill(random, block, left);
            crc.update(block, 0, n);
        }
        JarEntry entry = new JarEntry("payload.bin");
        entry.setMethod(ZipEntry.STORED);
        entry.setSize(bytes);
        entry.setCompressedSize(bytes);
        entry.setCrc(crc.getValue());
        out.putNextEntry(entry);
        random = new SplittableRandom(seed);
        for (long left = bytes; left > 0; left -= block.length) {
            int n = fill(random, block, left);
            out.write(block, 0, n);
        }
        out.closeEntry();
    }

    private static int fill(SplittableRandom random, byte[] block, long left) {
        int n = (int) Math.min(block.length, left);
        for (int i = 0; i < n; i += 8) {
            long value = random.nextLong();
            for (int j = 0; j < 8 && i + j < n; j++) {
                block[i + j] = (byte) (value >>> (8 * j));
            }
        }
        return n;
    }
}
