package dev.crashlab.repro.worker;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A JDK start-up cache (JDK 25+, JEP 483 and 514) for the child JVMs of one worker: the classes a child loads, linked,
 * and their method profiles, so each job's child starts without loading and verifying them again.
 *
 * <p>The first time a child of a given set of jars is asked for, a warm-up child (not a job: a one-layer replay of a
 * 4x4 input) runs in the background recording what it loads ({@code -XX:AOTMode=record}), then a JVM writes the cache
 * from that record; children started after that start from it, children started before run as they always did. A
 * job's own child never records: a recording JVM that cannot write its record exits 1 after the program succeeded,
 * which would turn a good replay into a crash. The cache's name is a hash of the java executable, the JVM flags, the
 * main class and every jar of the class path (path, size, time), so a rebuilt application gets a cache of its own
 * instead of one the JVM would ignore. A class path with a folder in it (a development build) gets none: the JDK
 * archives classes from jars only. A cache that cannot be written is not tried again for those jars.
 */
public final class StartupCache {

    /** The recording's own output would go to the warm-up's log: these flags keep the JVM quiet about it. */
    static final List<String> QUIET = List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:-DisplayVMOutput", "-Xlog:disable",
            "-Xlog:all=warning,aot*=off,cds*=off:stderr");

    /** The warm-up's spec: one small convolution, in the reproduction JSON format. */
    static final String WARM_UP_SPEC = "{\"format\":1,\"batch\":1,\"dtype\":\"float32\",\"layout\":\"NCHW\",\"mode\":\"inference\","
            + "\"optimizer\":\"sgd\",\"layers\":[{\"name\":\"start-up-cache-warm-up\",\"in_channels\":1,"
            + "\"out_channels\":1,\"input\":[4,4],\"kernel\":[3,3]}]}";

    private static final Duration WARM_UP_LIMIT = Duration.ofMinutes(5);

    private final Path dir;
    private final int jdkFeature;
    private final Consumer<String> log;
    private final Set<String> started = ConcurrentHashMap.newKeySet();

    /** A cache in {@code dir} for children of a java whose feature version is {@code jdkFeature}. */
    public StartupCache(Path dir, int jdkFeature, Consumer<String> log) {
        this.dir = dir;
        this.jdkFeature = jdkFeature;
        this.log = log;
    }

    /** A cache in {@code dir} for children of this JVM's java. */
    public static StartupCache forThisJvm(Path dir, Consumer<String> log) {
        return new StartupCache(dir, Runtime.version().feature(), log);
    }

    /**
     * The extra JVM flags {@code child} starts with: the cache when it is written, else none (and the first such call
     * for these jars starts the warm-up that writes it, on {@code backend}).
     */
    public List<String> flags(ChildJvm child, String backend) {
        if (jdkFeature < 25) {
            return List.of();
        }
        try {
            List<Path> jars = jars(child.classpath());
            if (jars.isEmpty() || jars.stream().anyMatch(Files::isDirectory)) {
                return List.of();
            }
            String key = key(child);
            Path cache = dir.resolve(key + ".aot");
            if (Files.isRegularFile(cache) && Files.size(cache) > 0) {
                return List.of("-XX:AOTCache=" + cache);
            }
            if (!Files.exists(dir.resolve(key + ".failed")) && started.add(key)) {
                Files.createDirectories(dir);
                Thread.ofVirtual().name("startup-cache-" + key).start(() -> warmUp(child, backend, key));
            }
        } catch (IOException | UncheckedIOException e) {
            // no cache: children start as they always did
        }
        return List.of();
    }

    /** Blocks until the cache for {@code child} is written or given up (tests, and a worker that wants it first). */
    public boolean awaitCache(ChildJvm child, Duration limit) throws IOException, InterruptedException {
        String key = key(child);
        long end = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < end) {
            if (Files.isRegularFile(dir.resolve(key + ".aot"))) {
                return true;
            }
            if (Files.exists(dir.resolve(key + ".failed"))) {
                return false;
            }
            Thread.sleep(100);
        }
        return false;
    }

    // The warm-up child records, a second JVM writes the cache; any failure leaves a .failed note with the reason.
    private void warmUp(ChildJvm template, String backend, String key) {
        Path work = dir.resolve(key + ".work");
        Path conf = work.resolve("record.conf");
        Path tmp = work.resolve("cache.aot");
        String failure = null;
        try {
            Files.createDirectories(work);
            Path spec = Files.writeString(work.resolve("spec.json"), WARM_UP_SPEC);
            ChildJvm warm = new ChildJvm(template.java(), template.classpath(), template.maxHeap(), template.jvmFlags(),
                    template.mainClass(), List.of(ChildProtocol.SPEC, spec.toString(), ChildProtocol.RESULT,
                            work.resolve("result.json").toString(), ChildProtocol.BACKEND, backend));
            List<String> record = new ArrayList<>(List.of("-XX:AOTMode=record", "-XX:AOTConfiguration=" + conf));
            record.addAll(QUIET);
            ChildExit exit = warm.start(work.resolve("warm-up.log"), record).await(WARM_UP_LIMIT);
            if (exit.ending() != ChildExit.Ending.EXITED || !Integer.valueOf(0).equals(exit.exitCode()) || !Files.isRegularFile(conf)) {
                failure = "the warm-up child " + exit.describe() + ": " + exit.logTail().strip();
            } else {
                List<String> cmd = new ArrayList<>();
                cmd.add(template.java().toString());
                cmd.addAll(template.jvmFlags());
                cmd.addAll(List.of("-XX:AOTMode=create", "-XX:AOTConfiguration=" + conf, "-XX:AOTCache=" + tmp,
                        "-XX:ErrorFile=" + work.resolve("error.log"), "-cp", template.classpath()));
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(work.resolve("create.log").toFile()).start();
                p.getOutputStream().close();
                if (!p.waitFor(WARM_UP_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
                if (p.isAlive() || p.exitValue() != 0 || !Files.isRegularFile(tmp) || Files.size(tmp) == 0) {
                    failure = "the JVM could not write the cache: " + tail(work.resolve("create.log"));
                } else {
                    Files.move(tmp, dir.resolve(key + ".aot"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    log.accept("start-up cache for the replay children written: " + dir.resolve(key + ".aot"));
                }
            }
        } catch (IOException | RuntimeException e) {
            failure = e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "interrupted";
        } finally {
            if (failure != null) {
                log.accept("start-up cache for the replay children not written (children start without one): " + failure);
                try {
                    Files.writeString(dir.resolve(key + ".failed"), failure + "\n");
                } catch (IOException ignored) {
                    // the next worker start tries again
                }
            }
            deleteTree(work);
        }
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log).strip();
            return s.length() > 400 ? s.substring(s.length() - 400) : s;
        } catch (IOException e) {
            return "(no output)";
        }
    }

    private static void deleteTree(Path root) {
        try (var files = Files.walk(root)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // a leftover file in the cache folder is harmless
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // nothing to delete
        }
    }

    /** The cache's name for {@code child}: java, main class and every class-path jar with its size and time. */
    static String key(ChildJvm child) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append(child.java()).append('\n').append(child.mainClass()).append('\n');
        for (String flag : child.jvmFlags()) {
            sb.append(flag).append('\n');
        }
        for (Path jar : jars(child.classpath())) {
            BasicFileAttributes a = Files.readAttributes(jar, BasicFileAttributes.class);
            sb.append(jar.toAbsolutePath()).append(' ').append(a.size()).append(' ').append(a.lastModifiedTime().toMillis()).append('\n');
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(StandardCharsets.UTF_8));
            return "replay-" + HexFormat.of().formatHex(h, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The files of a class path, with {@code dir/*} expanded to its jars in name order (as the launcher reads it). */
    static List<Path> jars(String classpath) throws IOException {
        List<Path> out = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            if (entry.endsWith(File.separator + "*") || entry.equals("*")) {
                Path folder = Path.of(entry.substring(0, entry.length() - 1).isEmpty() ? "." : entry.substring(0, entry.length() - 1));
                if (Files.isDirectory(folder)) {
                    List<Path> found = new ArrayList<>();
                    try (DirectoryStream<Path> s = Files.newDirectoryStream(folder, "*.{jar,JAR}")) {
                        s.forEach(found::add);
                    }
                    found.sort(null);
                    out.addAll(found);
                }
            } else if (Files.exists(Path.of(entry))) {
                out.add(Path.of(entry));
            }
        }
        return out;
    }
}
