package dev.crashlab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.unpack.BundleUnpacker;
import dev.crashlab.unpack.UnpackLimits;
import dev.crashlab.fact.Fact;
import dev.crashlab.parse.ArtifactFacts;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.repro.ByteSize;
import dev.crashlab.conv.ConvBackend;
import dev.crashlab.conv.ConvBackends;
import dev.crashlab.repro.MemoryEstimate;
import dev.crashlab.repro.MemoryEstimator;
import dev.crashlab.repro.Replay;
import dev.crashlab.repro.ReplayResult;
import dev.crashlab.repro.ReproJson;
import dev.crashlab.repro.ReproSpec;
import dev.crashlab.repro.ReproSpecJson;
import dev.crashlab.repro.ReproSpecs;
import dev.crashlab.sniff.ArtifactSniffer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Replays a reported convolution spec locally, on the CPU or a CUDA GPU, and prints how it went. */
@Command(name = "repro",
        description = {"Replay the convolution layers of a spec (or of a bundle's model facts) on a backend and print the result.",
                       "Exit status: 0 passed, 1 failed (out of memory, mismatch, device error) or crashed, 2 bad input,",
                       "3 backend unavailable."})
final class ReproCommand implements Callable<Integer> {

    /** Spec documents are small; anything larger is read as a bundle file. */
    private static final long MAX_SPEC_BYTES = 16L << 20;

    @Option(names = "--spec", required = true, paramLabel = "PATH",
            description = "a spec JSON (\"format\": 1), or anything `crashlab facts` reads (a model JSON, a bundle folder or archive)")
    Path specPath;

    @Option(names = "--backend", defaultValue = "cpu", paramLabel = "cpu|cuda", description = "where to replay (default: ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--memory-cap", paramLabel = "SIZE",
            description = "cap the backend's memory to emulate the reporter's card: 6GiB, 512MiB, or 'reporter' for the estimate's available memory")
    String memoryCap;

    @Option(names = "--batch", paramLabel = "N", description = "replay at this batch size instead of the spec's")
    Integer batch;

    @Option(names = "--mode", paramLabel = "inference|training", description = "override the spec's mode")
    String mode;

    @Option(names = "--seed", defaultValue = "" + Replay.DEFAULT_SEED, description = "seed of the generated inputs (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--estimate-only", description = "print the memory estimate without running anything")
    boolean estimateOnly;

    @Option(names = "--print-spec", description = "print the spec as JSON (to edit and pass back with --spec) and stop")
    boolean printSpec;

    @Option(names = "--json", description = "print {\"status\",\"backend\",\"reason\",\"estimate\",\"layers\",...} as JSON")
    boolean json;

    @Spec
    picocli.CommandLine.Model.CommandSpec cmd;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = cmd.commandLine().getOut();
        PrintWriter err = cmd.commandLine().getErr();
        if (!Files.exists(specPath, LinkOption.NOFOLLOW_LINKS)) {
            err.println("crashlab repro: no such file or folder: " + specPath);
            return 2;
        }
        ReproSpec spec;
        try {
            spec = load(err);
        } catch (BundleRejectedException e) {
            err.println("crashlab repro: refused: " + e.getMessage());
            return 2;
        }
        if (spec == null) {
            return 2;
        }
        if (spec.layers().isEmpty()) {
            // only the notes that say why no layer was kept; the assumed defaults do not matter here
            err.println("crashlab repro: nothing to replay: " + String.join("; ", spec.notes().stream()
                    .filter(n -> n.startsWith("layer ") || n.startsWith("no convolution")).toList()));
            return 2;
        }
        if (batch != null) {
            if (batch < 1) {
                err.println("crashlab repro: --batch must be >= 1");
                return 2;
            }
            spec = spec.withBatch(batch);
        }
        if (mode != null) {
            try {
                spec = spec.withMode(ReproSpec.Mode.valueOf(mode.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                err.println("crashlab repro: --mode must be inference or training, not " + mode);
                return 2;
            }
        }
        if (printSpec) {
            out.println(ReproSpecJson.write(spec));
            out.flush();
            return 0;
        }
        MemoryEstimate estimate = MemoryEstimator.estimate(spec);
        if (estimateOnly) {
            if (json) {
                out.println(ReproJson.pretty().writeValueAsString(estimate));
            } else {
                printEstimate(estimate, out);
                printNotes(spec, out);
            }
            out.flush();
            return 0;
        }
        long cap = 0;
        if (memoryCap != null) {
            if (memoryCap.equalsIgnoreCase("reporter")) {
                if (estimate.availableBytes() == null) {
                    err.println("crashlab repro: --memory-cap reporter needs the reporter's GPU memory (reporter_gpu in the spec, or an nvidia-smi file in the bundle)");
                    return 2;
                }
                cap = estimate.availableBytes();
            } else {
                cap = ByteSize.parse(memoryCap);
                if (cap <= 0) {
                    err.println("crashlab repro: --memory-cap must be a size such as 6GiB or 512MiB, not " + memoryCap);
                    return 2;
                }
            }
        }
        if (!backend.equals("cpu") && !backend.equals("cuda")) {
            err.println("crashlab repro: --backend must be cpu or cuda, not " + backend);
            return 2;
        }
        ReplayResult result;
        try (ConvBackend b = ConvBackends.open(backend)) {
            result = new Replay(b, cap, seed, json ? null : (i, n, r) -> {
                err.printf("crashlab repro: layer %d/%d %s: %s%n", i + 1, n, r.name(), r.status().label());
                err.flush();
            }).run(spec);
        }
        if (json) {
            ObjectNode root = ReproJson.mapper().valueToTree(result);
            ArrayNode notes = root.putArray("notes");
            spec.notes().forEach(notes::add);
            out.println(ReproJson.pretty().writeValueAsString(root));
        } else {
            printResult(result, out);
            printNotes(spec, out);
        }
        out.flush();
        return switch (result.status()) {
            case PASSED -> 0;
            case UNAVAILABLE -> 3;
            default -> 1;
        };
    }

    // A spec document when the file is JSON with a "format" field; otherwise the bundle's facts.
    private ReproSpec load(PrintWriter err) throws IOException, BundleRejectedException {
        if (Files.isRegularFile(specPath) && Files.size(specPath) <= MAX_SPEC_BYTES) {
            String text = new String(Files.readAllBytes(specPath), StandardCharsets.UTF_8);
            JsonNode tree = parseQuietly(text);
            if (tree != null && tree.isObject() && tree.has("format")) {
                ReproSpecJson.Read read = ReproSpecJson.read(tree);
                if (!read.ok()) {
                    read.problems().forEach(p -> err.println("crashlab repro: " + specPath + ": " + p));
                    return null;
                }
                return read.spec();
            }
        }
        return ReproSpecs.fromFacts(bundleFacts());
    }

    private static JsonNode parseQuietly(String text) {
        try {
            return ReproJson.mapper().readTree(text);
        } catch (IOException notJson) {
            return null;
        }
    }

    // The same reading as `crashlab facts`: unpack, then one pass over every file.
    private List<Fact> bundleFacts() throws IOException, BundleRejectedException {
        return OfflineBundle.readFacts(List.of(specPath), p -> false).facts();
    }

    private static void printResult(ReplayResult r, PrintWriter out) {
        out.printf("replay: %s on %s (%s)%n", r.status().label(), r.backend(), r.device() == null ? "no device" : r.device());
        out.println("  " + r.reason());
        if (r.findings() != null) {
            out.println("  " + r.findings().memory());
            out.println("  " + r.findings().time());
        }
        if (r.memoryCapBytes() > 0) {
            out.println("  memory cap: " + ByteSize.format(r.memoryCapBytes()));
        }
        if (!r.layers().isEmpty()) {
            out.printf("%-24s %-14s %10s %10s %10s %10s %10s%n", "layer", "status", "peak", "fwd ms", "bwd-data", "bwd-filt", "max err");
            for (ReplayResult.LayerResult l : r.layers()) {
                out.printf(Locale.ROOT, "%-24s %-14s %10s %10s %10s %10s %10s%s%n", l.name(), l.status().label(),
                        ByteSize.format(l.peakBytes()), ms(l.kernelMs().forward()), ms(l.kernelMs().backwardData()),
                        ms(l.kernelMs().backwardFilter()),
                        l.maxAbsError() == null ? "-" : String.format(Locale.ROOT, "%.2e", l.maxAbsError()),
                        l.tdrRisk() ? "  TDR risk (> 2 s)" : "");
                if (l.message() != null && l.status() != ReplayResult.LayerStatus.PASSED) {
                    out.println("    " + (l.error() == null ? "" : l.error() + ": ") + l.message());
                }
            }
        }
        printEstimate(r.estimate(), out);
    }

    private static String ms(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static void printEstimate(MemoryEstimate e, PrintWriter out) {
        out.printf("estimate (%s step): %s = weights %s + gradients %s + optimizer %s + kept activations %s + largest transient %s%n",
                e.mode().label(), ByteSize.format(e.totalBytes()), ByteSize.format(e.weightBytes()),
                ByteSize.format(e.gradientBytes()), ByteSize.format(e.optimizerBytes()), ByteSize.format(e.activationBytes()),
                ByteSize.format(e.transientBytes()));
        if (e.availableBytes() != null) {
            out.printf("  reporter's card: %s available -> %s%n", ByteSize.format(e.availableBytes()),
                    e.fits() ? "fits" : "does NOT fit");
        }
        out.printf("%-24s %10s %10s %10s %10s %10s %10s%n", "layer", "kept", "weights", "grads", "optimizer", "workspace", "total");
        for (MemoryEstimate.LayerMemory l : e.layers()) {
            out.printf("%-24s %10s %10s %10s %10s %10s %10s%n", l.name(), ByteSize.format(l.activationBytes()),
                    ByteSize.format(l.weightBytes()), ByteSize.format(l.gradientBytes()), ByteSize.format(l.optimizerBytes()),
                    ByteSize.format(l.workspaceBytes()), ByteSize.format(l.totalBytes()));
        }
        e.assumptions().forEach(a -> out.println("  assumes: " + a));
        e.notModelled().forEach(a -> out.println("  not modelled: " + a));
    }

    private static void printNotes(ReproSpec spec, PrintWriter out) {
        spec.notes().forEach(n -> out.println("  note: " + n));
    }
}
