package dev.crashlab.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Another CrashLab server, as a real process: a JVM of its own on this test's classpath that boots the application
 * the way {@code @QuarkusTest} does ({@link ServedApp}, run through the JUnit launcher by {@link ServedApp#main}), with
 * its own HTTP port and data folder, on the settings given here (system properties, which outrank the test profile).
 * It serves until it is stopped or killed.
 */
final class ServerProcess implements AutoCloseable {

    private final Process process;
    private final String url;
    private final Path log;

    private ServerProcess(Process process, String url, Path log) {
        this.process = process;
        this.url = url;
        this.log = log;
    }

    /** Starts one and waits (up to four minutes) until it serves. */
    static ServerProcess start(String name, Path dataDir, Map<String, String> settings) throws IOException, InterruptedException {
        Files.createDirectories(dataDir);
        Path ready = dataDir.resolve("url");
        Files.deleteIfExists(ready);
        Path log = dataDir.resolve(name + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx768m");
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        for (String inherited : List.of("java.util.logging.manager", "maven.home", "maven.repo.local")) {
            if (System.getProperty(inherited) != null) {
                cmd.add("-D" + inherited + "=" + System.getProperty(inherited));
            }
        }
        cmd.add("-Dquarkus.analytics.disabled=true");
        cmd.add("-Dcrashlab.data-dir=" + dataDir.toAbsolutePath());
        cmd.add("-D" + ServedApp.READY + "=" + ready.toAbsolutePath());
        settings.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add(ServedApp.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
        while (System.nanoTime() < deadline) {
            if (Files.isRegularFile(ready) && !Files.readString(ready).isBlank()) {
                return new ServerProcess(p, Files.readString(ready).strip(), log);
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("server " + name + " exited with " + p.exitValue() + "; its log: " + tail(log));
            }
            Thread.sleep(200);
        }
        p.destroyForcibly();
        throw new IllegalStateException("server " + name + " did not start within 4 minutes; its log: " + tail(log));
    }

    static String tail(Path log) {
        try {
            String s = Files.readString(log);
            return s.substring(Math.max(0, s.length() - 4000));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    /** Its base URL, e.g. {@code http://localhost:40123}. */
    String url() {
        return url;
    }

    String logTail() {
        return tail(log);
    }

    /** kill -9: no shutdown hook, no last commit. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    boolean alive() {
        return process.isAlive();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
