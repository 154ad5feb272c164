package dev.crashlab.repro.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay children's start-up cache, with real child JVMs of this JDK. */
class StartupCacheTest {

    @TempDir
    Path dir;

    private final List<String> events = new CopyOnWriteArrayList<>();

    // The JDK archives classes from jars only: the module's compiled classes (ScriptedChild among them) as one jar.
    private String jarClasspath() throws IOException {
        Path lib = Files.createDirectories(dir.resolve("lib"));
        try (OutputStream file = Files.newOutputStream(lib.resolve("app.jar")); JarOutputStream jar = new JarOutputStream(file)) {
            for (Path root : List.of(Path.of("crashlab-repro/target/classes"), Path.of("crashlab-repro/target/test-classes"))) {
                try (Stream<Path> files = Files.walk(root)) {
                    for (Path f : files.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(".class")).toList()) {
                        jar.putNextEntry(new JarEntry(root.relativize(f).toString().replace('\\', '/')));
                        jar.write(Files.readAllBytes(f));
                        jar.closeEntry();
                    }
                }
            }
        }
        return lib + "/*";
    }

    private ChildJvm child(String classpath, String main, String behaviour) throws IOException {
        Path spec = Files.writeString(dir.resolve("spec.json"), ScriptedChild.spec(behaviour));
        return new ChildJvm(Path.of(System.getProperty("java.home"), "bin", "java"), classpath, "64m", ChildJvm.DEFAULT_FLAGS,
                main, List.of(ChildProtocol.SPEC, spec.toString(), ChildProtocol.RESULT, dir.resolve("result.json").toString(),
                        ChildProtocol.BACKEND, "cpu"));
    }

    @Test
    void aWarmUpWritesTheCacheAndLaterChildrenStartFromIt() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() >= 25, "the JDK's AOT cache needs JDK 25; this is " + Runtime.version());
        Path cacheDir = dir.resolve("cache");
        StartupCache cache = StartupCache.forThisJvm(cacheDir, events::add);
        ChildJvm child = child(jarClasspath(), ScriptedChild.class.getName(), "pass");

        // the first child does not wait for the cache: it starts as before while the warm-up runs beside it
        assertThat(cache.flags(child, "cpu")).isEmpty();
        assertThat(cache.awaitCache(child, Duration.ofMinutes(3))).as("events: %s", events).isTrue();
        Path written = cacheDir.resolve(StartupCache.key(child) + ".aot");
        assertThat(Files.size(written)).isPositive();
        assertThat(events).anyMatch(e -> e.contains("written"));

        List<String> flags = cache.flags(child, "cpu");
        assertThat(flags).containsExactly("-XX:AOTCache=" + written);
        ChildExit exit = child.start(dir.resolve("child.log"), flags).await(Duration.ofSeconds(120));
        assertThat(exit.exitCode()).as(exit.logTail()).isZero();
        assertThat(Files.readString(dir.resolve("result.json"))).contains("\"passed\"");
        assertThat(exit.logTail()).as("the JVM used the cache without complaint").doesNotContainIgnoringCase("aot");
        try (Stream<Path> files = Files.list(cacheDir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no record or work folder is left")
                    .containsExactly(written.getFileName().toString());
        }
    }

    @Test
    void aWarmUpThatFailsIsNotTriedAgainAndSaysWhy() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() >= 25, "the JDK's AOT cache needs JDK 25; this is " + Runtime.version());
        StartupCache cache = StartupCache.forThisJvm(dir.resolve("cache"), events::add);
        ChildJvm child = child(jarClasspath(), "dev.crashlab.NoSuchMain", "pass");
        assertThat(cache.flags(child, "cpu")).isEmpty();
        assertThat(cache.awaitCache(child, Duration.ofMinutes(3))).isFalse();
        assertThat(events).anyMatch(e -> e.contains("not written") && e.contains("NoSuchMain"));
        assertThat(dir.resolve("cache").resolve(StartupCache.key(child) + ".failed")).isRegularFile();
        events.clear();
        assertThat(StartupCache.forThisJvm(dir.resolve("cache"), events::add).flags(child, "cpu")).isEmpty();
        Thread.sleep(500);
        assertThat(events).as("no second warm-up").isEmpty();
    }

    @Test
    void aClassPathWithAFolderGetsNoCache() throws Exception {
        StartupCache cache = new StartupCache(dir.resolve("cache"), 25, events::add);
        ChildJvm child = child("crashlab-repro/target/classes", ScriptedChild.class.getName(), "pass");
        assertThat(cache.flags(child, "cpu")).isEmpty();
        assertThat(dir.resolve("cache")).as("no warm-up started").doesNotExist();
    }

    @Test
    void olderJdksStartPlainly() throws Exception {
        StartupCache cache = new StartupCache(dir.resolve("cache"), 21, events::add);
        assertThat(cache.flags(child(jarClasspath(), ScriptedChild.class.getName(), "pass"), "cpu")).isEmpty();
        assertThat(dir.resolve("cache")).doesNotExist();
    }

    @Test
    void aRebuiltJarGetsAnotherCache() throws Exception {
        Path lib = Files.createDirectories(dir.resolve("other"));
        Path jar = Files.write(lib.resolve("app.jar"), new byte[] {1, 2, 3});
        ChildJvm child = new ChildJvm(Path.of("java"), lib + "/*", "64m", List.of(), "Main", List.of());
        String before = StartupCache.key(child);
        assertThat(StartupCache.key(child)).isEqualTo(before);
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 5_000));
        assertThat(StartupCache.key(child)).isNotEqualTo(before);
        assertThat(StartupCache.jars(lib + "/*")).containsExactly(jar);
    }
}
