package dev.crashlab.repro.worker;

import dev.crashlab.conv.ConvBackend;
import dev.crashlab.conv.CpuConvBackend;
import dev.crashlab.repro.MemoryEstimator;
import dev.crashlab.repro.Replay;
import dev.crashlab.repro.ReplayResult;
import dev.crashlab.repro.ReproJson;
import dev.crashlab.repro.ReproSpec;
import dev.crashlab.repro.ReproSpecJson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Replays one job's spec in the child JVM a worker starts for it, and writes the result file; or, with
 * {@code --probe}, describes the backend's device. The process exists so that a replay that crashes
 * (a driver fault, a JVM abort) takes only itself down.
 *
 * <p>NOTE: follows {@link ChildProtocol}: exit 0 with a result file for every replay outcome, a
 * {@code progress:} line per finished layer. The CUDA backend is loaded by name, so a build without it
 * (or a machine without a driver) gives an {@code unavailable} result, not a crash.
 */
public final class ReplayChild {

    /** The CUDA backend's class, loaded reflectively (JCuda is loaded only where it is asked for). */
    public static final String CUDA_BACKEND = "dev.crashlab.conv.cuda.CudaConvBackend";

    private ReplayChild() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the child's work; returns the exit status (2 for bad arguments). */
    static int run(String[] args, PrintStream out) {
        List<String> a = List.of(args);
        String backendName = option(a, ChildProtocol.BACKEND, "cpu");
        String resultPath = option(a, ChildProtocol.RESULT, null);
        if (resultPath == null) {
            out.println("replay child: " + ChildProtocol.RESULT + " FILE is required");
            return 2;
        }
        Path result = Path.of(resultPath);
        try {
            if (a.contains(ChildProtocol.PROBE)) {
                Files.writeString(result, probe(backendName));
                return 0;
            }
            String specPath = option(a, ChildProtocol.SPEC, null);
            if (specPath == null) {
                out.println("replay child: " + ChildProtocol.SPEC + " FILE is required");
                return 2;
            }
            long cap = Long.parseLong(option(a, ChildProtocol.MEMORY_CAP, "0"));
            ReproSpecJson.Read read = ReproSpecJson.read(Files.readString(Path.of(specPath),
                    StandardCharsets.UTF_8));
            if (!read.ok()) {
                ReplayResult invalid = new ReplayResult(ReplayResult.Status.FAILED, backendName, null, "invalid spec: "
                        + read.problems().stream().map(Object::toString).collect(Collectors.joining("; ")), cap,
                        Replay.DEFAULT_SEED, null, List.of());
                Files.writeString(result, ReproJson.write(invalid));
                return 0;
            }
            ReplayResult r = replay(read.spec(), backendName, cap, out);
            Files.writeString(result, ReproJson.write(r));
            return 0;
        } catch (IOException | RuntimeException e) {
            // a failure of this process itself: the worker records it as a crash, with this line in the log tail
            out.println("replay child failed: " + e);
            e.printStackTrace(out);
            return 1;
        }
    }

    private static ReplayResult replay(ReproSpec spec, String backendName, long cap, PrintStream out) {
        Opened opened = open(backendName);
        if (opened.backend() == null) {
            return new ReplayResult(ReplayResult.Status.UNAVAILABLE, backendName, null, opened.why(), cap,
                    Replay.DEFAULT_SEED, MemoryEstimator.estimate(spec), List.of());
        }
        try (ConvBackend backend = opened.backend()) {
            out.println(ChildProtocol.PROGRESS_PREFIX + "replaying " + spec.layers().size() + " layer(s) on " + backendName);
            out.flush();
            long started = System.nanoTime();
            Replay[] replay = new Replay[1];
            replay[0] = new Replay(backend, cap, Replay.DEFAULT_SEED, new Replay.Progress() {
                @Override
                public void layerDone(int i, int n, ReplayResult.LayerResult layer) {
                    out.println(ChildProtocol.PROGRESS_PREFIX + ChildProtocol.passProgress(replay[0].flopDone(),
                            replay[0].flopTotal(), (System.nanoTime() - started) / 1_000_000) + "layer " + (i + 1) + "/"
                            + n + " " + layer.name() + ": " + layer.status().label());
                    out.flush();
                }

                @Override
                public void passStarting(int i, int n, String layer, String pass, long flopDone, long flopTotal) {
                    out.println(ChildProtocol.PROGRESS_PREFIX + ChildProtocol.passProgress(flopDone, flopTotal,
                            (System.nanoTime() - started) / 1_000_000) + "layer " + (i + 1) + "/" + n + " " + layer + " "
                            + pass);
                    out.flush();
                }
            });
            return replay[0].run(spec);
        }
    }

    private static String probe(String backendName) {
        Opened opened = open(backendName);
        if (opened.backend() == null) {
            return ReproJson.write(new DeviceProbe.Probe(backendName, backendName + " backend", null, opened.why()));
        }
        try (ConvBackend b = opened.backend()) {
            String why = b.unavailableReason().orElse(null);
            Long memory = why == null && b instanceof CpuConvBackend ? Runtime.getRuntime().maxMemory() : null;
            return ReproJson.write(new DeviceProbe.Probe(backendName, why == null ? b.device() : backendName + " backend",
                    memory, why));
        }
    }

    /** A backend, or why there is none. */
    private record Opened(ConvBackend backend, String why) {}

    private static Opened open(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "cpu":
                return new Opened(new CpuConvBackend(), null);
            case "cuda":
                try {
                    return new Opened((ConvBackend) Class.forName(CUDA_BACKEND).getDeclaredConstructor().newInstance(), null);
                } catch (ClassNotFoundException e) {
                    return new Opened(null, "the CUDA backend is not part of this build");
                } catch (ReflectiveOperationException | LinkageError e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    return new Opened(null, "no CUDA device: " + cause);
                }
            default:
                return new Opened(null, "unknown backend `" + name + "` (cpu or cuda)");
        }
    }

    private static String option(List<String> args, String name, String fallback) {
        int i = args.indexOf(name);
        return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : fallback;
    }
}
