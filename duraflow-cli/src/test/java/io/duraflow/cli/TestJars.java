package io.duraflow.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Jobs' jars built while a test runs, from Java sources compiled against this test's class path
 * (duraflow-api among it), so their classes are on no cluster process's class path: the only way a
 * cluster can run them is from the jar.
 */
final class TestJars {
    private TestJars() {}

    /**
     * Compiles {@code sources} (binary class name -> source) and packs the classes into {@code jar},
     * with the manifest attributes given.
     */
    static Path build(Path jar, Map<String, String> sources, Map<String, String> manifest) throws IOException {
        Path work = Files.createTempDirectory(jar.getParent(), "jar-build-");
        Path sourceDir = Files.createDirectories(work.resolve("src"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-classpath",
                System.getProperty("java.class.path"), "--release", "17", "-nowarn"));
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Path file = sourceDir.resolve(source.getKey().replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue(), StandardCharsets.UTF_8);
            args.add(file.toString());
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
        int exit = compiler.run(null, errors, errors, args.toArray(new String[0]));
        if (exit != 0) {
            throw new IllegalStateException("the test job does not compile:\n" + errors.toString(StandardCharsets.UTF_8));
        }
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.forEach((key, value) -> mf.getMainAttributes().putValue(key, value));
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, mf);
                Stream<Path> walk = Files.walk(classes)) {
            for (Path path : walk.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(path).toString().replace('\\', '/')));
                Files.copy(path, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    /**
     * A batch job {@code com.example.app.CountByBucket}: numbers 0..n-1 counted per bucket, the
     * bucket from {@code com.example.app.Buckets} ({@code x % modulus}), collected as "counts".
     */
    static Map<String, String> countByBucket(int modulus) {
        return Map.of("com.example.app.CountByBucket", """
                package com.example.app;

                import io.duraflow.api.DuraflowJob;
                import io.duraflow.api.JobBuilder;
                import io.duraflow.api.JobParameters;
                import io.duraflow.api.connectors.SequenceSource;
                import io.duraflow.api.types.Tuple2;
                import io.duraflow.api.types.Types;

                public final class CountByBucket implements DuraflowJob {
                    @Override
                    public void build(JobBuilder job, JobParameters params) {
                        long n = params.getLong("n", 1000);
                        job.fromSource("numbers", new SequenceSource(0, n, 4))
                                .map(x -> Tuple2.of(Buckets.of(x), 1L), Types.tuple(Types.LONG, Types.LONG))
                                .keyBy(Tuple2::f0, Types.LONG)
                                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1()))
                                .collect("counts");
                    }
                }
                """, "com.example.app.Buckets", """
                package com.example.app;

                public final class Buckets {
                    private Buckets() {}

                    public static long of(long x) {
                        return x % MODULUS;
                    }
                }
                """.replace("MODULUS", Integer.toString(modulus)));
    }
}
