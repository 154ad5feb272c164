package dev.crashlab.bench;

import dev.crashlab.reader.BundleFacts;
import dev.crashlab.reader.BundleReader;
import dev.crashlab.reader.ReadBudget;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import dev.crashlab.unpack.BundleUnpacker;
import dev.crashlab.unpack.StagedFile;
import dev.crashlab.unpack.UnpackLimits;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Measures the CPU of reading a large zip bundle the way the server does, without HTTP or a database: unpack
 * ({@code BundleUnpacker}), sniff each staged file ({@code ArtifactSniffer}, as {@code BundleService.store}),
 * redact it ({@code SecretRedactor.redactFile}, the server's class, when its compiled classes are on the class path),
 * then one {@code BundleReader} pass with the stored types (as {@code BundleIngest}). {@code scripts/bench ingest}
 * drives it and measures the peer ({@code unzip -p | wc -l} over the same zip) in the same run.
 *
 * <p>The zip is {@code LargeBundleIngestTest}'s shape: {@code logs/worker-NNNN.log}, each a first line of its own and
 * then {@code ok.} lines, one file holding a Hugging Face token.
 */
@Command(name = "ingest",
        description = "Print the CPU seconds of each phase of reading a generated many-files zip (unpack, sniff, redact, read).")
final class IngestBenchCommand implements Callable<Integer> {

    @Option(names = "--files", defaultValue = "9000", description = "files in the zip (default 9000)")
    int files;

    @Option(names = "--lines", defaultValue = "22000", description = "lines per file (default 22000)")
    int lines;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds in this JVM; the first is cold (default 3)")
    int rounds;

    @Option(names = "--max-bytes", defaultValue = "200000000",
            description = "the read budget's bytes, as LargeBundleIngestTest sets crashlab.ingest.max-bytes (default 200000000)")
    long maxBytes;

    @Option(names = "--work", required = true, description = "a scratch folder (the zip and the staging folders)")
    Path work;

    @Option(names = "--zip-only", description = "write the zip to WORK/many-files.zip and stop (for the peer)")
    boolean zipOnly;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Files.createDirectories(work);
        Path zip = work.resolve("many-files.zip");
        if (!Files.exists(zip)) {
            writeZip(zip, files, lines);
        }
        if (zipOnly) {
            return 0;
        }
        MethodHandle redactor = redactor();
        if (redactor == null) {
            out.println("note: the server's SecretRedactor is not on the class path; the redact phase is left out");
        }
        List<Map<String, double[]>> all = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            all.add(round(zip, work.resolve("staging-" + r), redactor));
        }
        out.printf(Locale.ROOT, "ingest phases: %d files x %d lines (%.1f MB expanded), read budget %d bytes; %d rounds in one JVM%n",
                files, lines, expandedBytes(files, lines) / 1e6, maxBytes, rounds);
        out.printf(Locale.ROOT, "%-34s %12s %12s %12s %12s%n", "phase", "first thr s", "first JVM s", "last thr s", "last JVM s");
        for (String phase : all.getFirst().keySet()) {
            double[] first = all.getFirst().get(phase);
            double[] last = all.getLast().get(phase);
            out.printf(Locale.ROOT, "%-34s %12.3f %12.3f %12.3f %12.3f%n", phase, first[0], first[1], last[0], last[1]);
        }
        StringBuilder perRound = new StringBuilder("JVM CPU s of every round (all phases):");
        for (Map<String, double[]> m : all) {
            perRound.append(String.format(Locale.ROOT, " %.3f", m.get("all phases")[1]));
        }
        out.println(perRound);
        // one line scripts/bench reads: the last round's whole-JVM CPU seconds, and the sniff phase's
        out.printf(Locale.ROOT, "bench-ingest: all_cpu=%.3f sniff_cpu=%.3f%n",
                all.getLast().get("all phases")[1], all.getLast().get("sniff (ArtifactSniffer, 64 KiB)")[1]);
        return 0;
    }

    /** One round: each phase's CPU seconds, this thread's and the whole JVM's, in phase order. */
    private Map<String, double[]> round(Path zip, Path staging, MethodHandle redactor) throws Exception {
        Map<String, double[]> phases = new java.util.LinkedHashMap<>();
        Cpu whole = Cpu.now();
        try (BundleUnpacker unpacker = new BundleUnpacker(new UnpackLimits(16L << 30, 100_000, 3, 1_000_000, 16L << 20), staging)) {
            Cpu c = Cpu.now();
            unpacker.add("many-files.zip", zip, true);
            List<StagedFile> staged = new ArrayList<>(unpacker.files());
            phases.put("unpack (BundleUnpacker)", c.since());

            c = Cpu.now();
            ArtifactSniffer sniffer = new ArtifactSniffer();
            List<ArtifactType> types = new ArrayList<>(staged.size());
            for (StagedFile f : staged) {
                types.add(sniffer.sniff(f.path(), f.file()));
            }
            phases.put("sniff (ArtifactSniffer, 64 KiB)", c.since());

            if (redactor != null) {
                c = Cpu.now();
                Map<String, Integer> found = new TreeMap<>();
                for (int i = 0; i < staged.size(); i++) {
                    if (types.get(i) == ArtifactType.EVTX || types.get(i) == ArtifactType.BINARY) {
                        continue;
                    }
                    Path file = staged.get(i).file();
                    Path redacted = file.resolveSibling(file.getFileName() + ".redacted");
                    Object counts = redactFile(redactor, file, redacted);
                    @SuppressWarnings("unchecked")
                    Map<String, Integer> byKind = (Map<String, Integer>) counts.getClass().getMethod("byKind").invoke(counts);
                    byKind.forEach((k, v) -> found.merge(k, v, Integer::sum));
                    if (byKind.isEmpty()) {
                        Files.deleteIfExists(redacted); // not written when nothing was found
                    } else {
                        Files.move(redacted, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                phases.put("redact (SecretRedactor.redactFile)", c.since());
                if (!found.equals(Map.of("huggingface-token", 1))) {
                    throw new IllegalStateException("redaction found " + found + ", expected the one token");
                }
            }

            c = Cpu.now();
            List<BundleReader.Item> items = new ArrayList<>(staged.size());
            for (int i = 0; i < staged.size(); i++) {
                StagedFile f = staged.get(i);
                items.add(new BundleReader.Item(f.path(), types.get(i), Files.size(f.file()), () -> Files.newInputStream(f.file())));
            }
            BundleFacts read = new BundleReader(new ReadBudget(maxBytes, 200_000, 32L << 20, 200_000, Duration.ofMinutes(30)))
                    .read(items);
            phases.put("read (BundleReader, stored types)", c.since());
            if (read.artifacts().size() != files) {
                throw new IllegalStateException("read " + read.artifacts().size() + " artifacts of " + files);
            }
        }
        phases.put("all phases", whole.since());
        return phases;
    }

    private static Object redactFile(MethodHandle redactor, Path file, Path redacted) throws Exception {
        try {
            return redactor.invoke(file, redacted);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code SecretRedactor.redactFile(Path, Path)} of the server's classes, or null where they are not on the class path. */
    private static MethodHandle redactor() throws IllegalAccessException, NoSuchMethodException {
        try {
            Class<?> c = Class.forName("dev.crashlab.bundle.SecretRedactor");
            Class<?> counts = Class.forName("dev.crashlab.bundle.SecretRedactor$Counts");
            return MethodHandles.publicLookup().findStatic(c, "redactFile", MethodType.methodType(counts, Path.class, Path.class));
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    static long expandedBytes(int files, int lines) {
        return (long) files * (lines - 1) * 4 + (long) files * "worker 0000 starting\n".length();
    }

    /** LargeBundleIngestTest's zip: {@code files} logs of {@code lines} lines, the middle one holding a token. */
    static void writeZip(Path target, int files, int lines) throws IOException {
        byte[] body = "ok.\n".repeat(lines - 1).getBytes(StandardCharsets.US_ASCII);
        Path tmp = target.resolveSibling(target.getFileName() + ".part");
        try (ZipOutputStream out = new ZipOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16))) {
            for (int i = 0; i < files; i++) {
                out.putNextEntry(new ZipEntry(String.format(Locale.ROOT, "logs/worker-%04d.log", i)));
                out.write(("worker " + i + " starting\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                if (i == files / 2) {
                    // a fixed made-up value of the token's shape (not a real token)
                    out.write("HF_TOKEN=hf_0123456789abcdefghijABCDEFGHIJklmnopqrst\n".getBytes(StandardCharsets.US_ASCII));
                }
                out.closeEntry();
            }
        }
        Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** This thread's and the whole JVM's CPU time at one moment. */
    private record Cpu(long thread, long process) {
        static Cpu now() {
            return new Cpu(THREADS.getCurrentThreadCpuTime(),
                    ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime());
        }

        double[] since() {
            Cpu n = now();
            return new double[] {(n.thread - thread) / 1e9, (n.process - process) / 1e9};
        }
    }
}
