package dev.crashlab.cli;

import dev.crashlab.repro.worker.ChildJvm;
import dev.crashlab.repro.worker.DeviceProbe;
import dev.crashlab.repro.worker.HttpJobSource;
import dev.crashlab.repro.worker.ReproWorker;
import dev.crashlab.repro.worker.WorkerMessages.Device;
import dev.crashlab.repro.worker.WorkerSettings;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Runs a lab worker: claims reproduction jobs from a CrashLab server and replays each in a child JVM. */
@Command(name = "worker",
        description = {"Claim reproduction jobs from a CrashLab server and replay each in a child JVM (one job at a time:",
                       "run one worker per GPU, e.g. with CUDA_VISIBLE_DEVICES=N and --name host-gpuN).",
                       "The token is a worker token an admin made for this --name (Admin > Workers); prefer CRASHLAB_WORKER_TOKEN or --token-file",
                       "to --token, which other users of the machine can read in the process list."})
final class WorkerCommand implements Callable<Integer> {

    @Option(names = "--server", required = true, paramLabel = "URL", description = "the server, e.g. http://crashlab:8080")
    URI server;

    @Option(names = "--token", paramLabel = "T", description = "the worker token (default: $CRASHLAB_WORKER_TOKEN)")
    String token;

    @Option(names = "--token-file", paramLabel = "FILE", description = "read the worker token from FILE")
    Path tokenFile;

    @Option(names = "--backend", defaultValue = "cpu", paramLabel = "cpu|cuda", description = "the backend (default: ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--name", paramLabel = "NAME", description = "this worker's name, unique per server (default: HOST-BACKEND)")
    String name;

    @Option(names = "--time-limit", defaultValue = "600", paramLabel = "SECONDS", description = "wall-clock limit per job (default: ${DEFAULT-VALUE})")
    long timeLimitSeconds;

    @Option(names = "--child-heap", defaultValue = "2g", paramLabel = "SIZE", description = "each child JVM's -Xmx (default: ${DEFAULT-VALUE})")
    String childHeap;

    @Option(names = "--poll", defaultValue = "2", paramLabel = "SECONDS", description = "pause between claims while idle (default: ${DEFAULT-VALUE})")
    long pollSeconds;

    @Option(names = "--scratch", paramLabel = "DIR", description = "folder for each job's spec, result and log (default: a temporary folder)")
    Path scratch;

    @Option(names = "--once", description = "claim at most one job, run it, and exit (0 whether or not there was one)")
    boolean once;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String t = token != null ? token : tokenFile != null ? Files.readString(tokenFile).strip() : System.getenv("CRASHLAB_WORKER_TOKEN");
        if (t == null || t.isBlank()) {
            err.println("crashlab worker: no token: pass --token-file FILE, set CRASHLAB_WORKER_TOKEN, or --token T"
                    + " (a worker token an admin made for this worker's name on the server's Admin page)");
            return 2;
        }
        String b = backend.toLowerCase(Locale.ROOT);
        if (!b.equals("cpu") && !b.equals("cuda")) {
            err.println("crashlab worker: --backend must be cpu or cuda, not " + backend);
            return 2;
        }
        String n = name != null ? name : hostName() + "-" + b;
        Path dir = scratch != null ? scratch : Files.createTempDirectory("crashlab-worker-");
        WorkerSettings settings = new WorkerSettings(n, b, Duration.ofSeconds(Math.max(1, pollSeconds)),
                Duration.ofSeconds(Math.max(1, timeLimitSeconds)), childHeap, dir, WorkerSettings.REPLAY_MAIN,
                ChildJvm.classpathOf(System.getProperty("java.class.path")));
        List<Device> devices = DeviceProbe.probe(settings);
        for (Device d : devices) {
            out.println("crashlab worker " + n + ": " + b + " backend on " + d.name()
                    + (d.unavailableReason() == null ? "" : " (unavailable: " + d.unavailableReason() + ")"));
        }
        out.flush();
        ReproWorker worker = new ReproWorker(new HttpJobSource(server, t), settings, devices, CrashLabCli.version(),
                line -> {
                    out.println(Instant.now() + " " + line);
                    out.flush();
                });
        if (once) {
            boolean ran;
            try {
                ran = worker.runOne();
            } catch (java.io.IOException e) {
                err.println("crashlab worker: " + e.getMessage());
                return 1;
            }
            out.println("crashlab worker " + n + ": " + (ran ? "ran one job" : "no job queued for this worker"));
            out.flush();
            return 0;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(worker::stop, "crashlab-worker-stop"));
        out.println("crashlab worker " + n + ": polling " + server + " (Ctrl-C stops; a running job goes back to the queue)");
        out.flush();
        worker.run();
        return 0;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "-");
        } catch (java.io.IOException e) {
            return "worker";
        }
    }
}
