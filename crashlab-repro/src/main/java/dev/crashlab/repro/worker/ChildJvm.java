package dev.crashlab.repro.worker;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Describes how to start a child JVM for one job: the same java and classpath as this process (so the
 * child runs the same code), a heap limit, and the main class with its arguments.
 *
 * <p>NOTE: the child's stdout and stderr go to one log file; it inherits no stdin. The classpath is
 * this process's own unless one is given: a Quarkus fast-jar ({@code quarkus-run.jar}) runs through its
 * own class loader, so its {@code app/} and {@code lib/main/} folders are named instead (see
 * {@link #classpathOf(String)}).
 *
 * @param java the {@code java} executable
 * @param classpath the child's {@code -cp}
 * @param maxHeap the child's {@code -Xmx} value ({@code 2g})
 * @param jvmFlags extra JVM flags (native access, the vector module)
 * @param mainClass the class whose {@code main} the child runs
 * @param args the main's arguments
 */
public record ChildJvm(Path java, String classpath, String maxHeap, List<String> jvmFlags, String mainClass,
        List<String> args) {

    /** The JVM flags CrashLab's own launcher passes (JCuda's JNI, the CPU backend's vector API). */
    public static final List<String> DEFAULT_FLAGS = List.of("--enable-native-access=ALL-UNNAMED",
            "--add-modules", "jdk.incubator.vector", "-XX:+UseSerialGC", "-Xss4m");

    public ChildJvm {
        jvmFlags = List.copyOf(jvmFlags);
        args = List.copyOf(args);
    }

    /** A child of this JVM's java and classpath. */
    public static ChildJvm likeThisJvm(String maxHeap, String mainClass, List<String> args) {
        return new ChildJvm(Path.of(System.getProperty("java.home"), "bin", "java"),
                classpathOf(System.getProperty("java.class.path")), maxHeap, DEFAULT_FLAGS, mainClass, args);
    }

    /**
     * Returns a classpath a child can use for {@code classpath}: itself, or for a Quarkus fast-jar
     * launcher the folders of jars next to it.
     */
    public static String classpathOf(String classpath) {
        if (classpath != null && !classpath.contains(File.pathSeparator) && classpath.endsWith("quarkus-run.jar")) {
            Path dir = Path.of(classpath).toAbsolutePath().getParent();
            return dir.resolve("app") + File.separator + "*" + File.pathSeparator
                    + dir.resolve("lib").resolve("main") + File.separator + "*";
        }
        return classpath;
    }

    /** Returns the command line. */
    public List<String> command() {
        return command(List.of());
    }

    /** Returns the command line with {@code extraFlags} after the JVM flags (a start-up cache's). */
    public List<String> command(List<String> extraFlags) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.add("-Xmx" + maxHeap);
        cmd.addAll(jvmFlags);
        cmd.addAll(extraFlags);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /** Starts the child with its output going to {@code log}; the returned run supervises it. */
    public ChildRun start(Path log) throws IOException {
        return start(log, List.of());
    }

    /** Starts the child with {@code extraFlags} (see {@link StartupCache}) and its output going to {@code log}. */
    public ChildRun start(Path log, List<String> extraFlags) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder pb = new ProcessBuilder(command(extraFlags))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        Map<String, String> minimal = childEnvironment(Map.copyOf(env));
        env.clear();
        env.putAll(minimal);
        Process process = pb.start();
        process.getOutputStream().close(); // no stdin: a child waiting for input would only hang
        return new ChildRun(process, log);
    }

    /**
     * Names of the variables a child keeps: where programs and libraries are (the CUDA driver and JCuda's
     * natives), locale and time zone, temporary folders, Windows' system folders, and which GPUs it may
     * use. Everything else (the database password, the worker token, cloud credentials) stays with the parent.
     */
    static final Set<String> CHILD_ENV = Set.of("PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "LANG", "LC_ALL", "LC_CTYPE",
            "TZ", "TMPDIR", "TMP", "TEMP", "SystemRoot", "SYSTEMROOT", "windir", "WINDIR", "ComSpec", "PATHEXT",
            "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_HOME",
            "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES");

    /** Returns the environment a child gets from a parent whose environment is {@code parent}: {@link #CHILD_ENV} only. */
    public static Map<String, String> childEnvironment(Map<String, String> parent) {
        Map<String, String> out = new TreeMap<>();
        parent.forEach((k, v) -> {
            if (CHILD_ENV.contains(k)) {
                out.put(k, v);
            }
        });
        return out;
    }
}
