package io.duraflow.artifact;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Jars built while a test runs: Java sources compiled against the test's class path (duraflow-api
 * among it) and packed with raw entries and manifest attributes, so their classes are on no class
 * path but the jar's.
 */
public final class TestJobJars {
    private TestJobJars() {
    }

    /** A jar to be written to {@code file}. */
    public static Builder jar(Path file) {
        return new Builder(file);
    }

    /** The source of a public job class that collects 0..9 as "all". */
    public static String jobSource(String binaryName) {
        return classSource(binaryName, "implements io.duraflow.api.DuraflowJob", """
                @Override
                public void build(io.duraflow.api.JobBuilder job, io.duraflow.api.JobParameters params) {
                    job.fromSource("n", new io.duraflow.api.connectors.SequenceSource(0, 10, 1)).collect("all");
                }
                """);
    }

    /** The source of {@code public class <name> <declaration> { body }}. */
    public static String classSource(String binaryName, String declaration, String body) {
        int dot = binaryName.lastIndexOf('.');
        return "package " + binaryName.substring(0, dot) + ";\n\npublic class " + binaryName.substring(dot + 1) + " "
                + declaration + " {\n" + body + "\n}\n";
    }

    /** The source of a class whose static {@code version()} returns {@code version}. */
    public static String versionedSource(String binaryName, String version) {
        return classSource(binaryName, "", "public static String version() { return \"" + version + "\"; }");
    }

    public static final class Builder {
        private final Path file;
        private final Map<String, String> sources = new LinkedHashMap<>();
        private final Map<String, String> manifest = new LinkedHashMap<>();
        private final Map<String, byte[]> entries = new TreeMap<>();

        private Builder(Path file) {
            this.file = file;
        }

        /** A class compiled into the jar, by binary name. */
        public Builder source(String binaryName, String source) {
            sources.put(binaryName, source);
            return this;
        }

        /** A job class ({@link #jobSource}). */
        public Builder job(String binaryName) {
            return source(binaryName, jobSource(binaryName));
        }

        public Builder manifest(String attribute, String value) {
            manifest.put(attribute, value);
            return this;
        }

        /** An entry stored as it is. */
        public Builder entry(String name, byte[] bytes) {
            entries.put(name, bytes);
            return this;
        }

        public Builder entry(String name, String text) {
            return entry(name, text.getBytes(StandardCharsets.UTF_8));
        }

        public Path build() throws IOException {
            Map<String, byte[]> all = new TreeMap<>(compile());
            all.putAll(entries);
            Manifest mf = new Manifest();
            mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
            manifest.forEach((key, value) -> mf.getMainAttributes().putValue(key, value));
            try (OutputStream out = Files.newOutputStream(file); JarOutputStream jar = new JarOutputStream(out, mf)) {
                for (Map.Entry<String, byte[]> entry : all.entrySet()) {
                    jar.putNextEntry(new JarEntry(entry.getKey()));
                    jar.write(entry.getValue());
                    jar.closeEntry();
                }
            }
            return file;
        }

        /** The class files of the sources, by entry name. */
        private Map<String, byte[]> compile() throws IOException {
            Map<String, byte[]> classes = new TreeMap<>();
            if (sources.isEmpty()) {
                return classes;
            }
            Path work = Files.createTempDirectory(file.toAbsolutePath().getParent(), "jar-build-");
            Path sourceDir = Files.createDirectories(work.resolve("src"));
            Path classDir = Files.createDirectories(work.resolve("classes"));
            List<String> args = new ArrayList<>(List.of("-d", classDir.toString(), "-classpath",
                    System.getProperty("java.class.path"), "--release", "17", "-nowarn", "-proc:none"));
            for (Map.Entry<String, String> source : sources.entrySet()) {
                Path path = sourceDir.resolve(source.getKey().replace('.', '/') + ".java");
                Files.createDirectories(path.getParent());
                Files.writeString(path, source.getValue(), StandardCharsets.UTF_8);
                args.add(path.toString());
            }
            JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
            ByteArrayOutputStream errors = new ByteArrayOutputStream();
            if (compiler.run(null, errors, errors, args.toArray(new String[0])) != 0) {
                throw new IllegalStateException("the test jar's sources do not compile:\n"
                        + errors.toString(StandardCharsets.UTF_8));
            }
            try (Stream<Path> walk = Files.walk(classDir)) {
                for (Path path : walk.filter(Files::isRegularFile).toList()) {
                    classes.put(classDir.relativize(path).toString().replace('\\', '/'), Files.readAllBytes(path));
                }
            }
            return classes;
        }
    }
}
