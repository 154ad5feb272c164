package dev.crashlab.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.fact.Fact;
import dev.crashlab.reader.ArtifactRead;
import dev.crashlab.reader.BundleFacts;
import dev.crashlab.fact.Facts;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.parse.ArtifactFacts;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Parses a bundle offline and prints the facts read from each of its files. */
@Command(name = "facts",
        description = {"Parse a bundle into facts, as the server does, and print them per file.",
                       "PATH is a file, a folder (taken as one bundle) or an archive; several PATHs make one bundle.",
                       "Exits 2 if the bundle would be refused as an upload."})
final class FactsCommand implements Callable<Integer> {

    @Parameters(arity = "0..*", paramLabel = "PATH", description = "files, folders or archives (zip, tar, tar.gz, gz)")
    List<Path> paths;

    @Option(names = "--json", description = "print {\"artifacts\":[{\"path\",\"type\",\"facts\",\"problems\"}]} instead of text")
    boolean json;

    @Option(names = "--stats", description = "also print bytes read, seconds, MB/s and peak heap to stderr (for scripts/bench facts)")
    boolean stats;

    @Option(names = "--print-prefilter", hidden = true,
            description = "print the literals the reading pass's one scan looks for in a console log, one per line, and exit (scripts/bench facts gives them to grep)")
    boolean printPrefilter;

    @Option(names = "--stats-pass-first", hidden = true,
            description = "with --stats: time the reading pass first in this JVM, before each parser alone (scripts/bench facts)")
    boolean passFirst;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (printPrefilter) {
            // what the reading pass's one scan looks for in a console log: every literal of every parser of the type
            dev.crashlab.parse.console.SharedLineScan.literals(
                    dev.crashlab.parse.Parsers.forType(dev.crashlab.sniff.ArtifactType.CONSOLE_LOG)).forEach(out::println);
            out.flush();
            return 0;
        }
        if (paths == null || paths.isEmpty()) {
            err.println("crashlab facts: give at least one file, folder or archive");
            return 2;
        }
        for (Path p : paths) {
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                err.println("crashlab facts: no such file or folder: " + p);
                return 2;
            }
        }
        try {
            var threads = java.lang.management.ManagementFactory.getThreadMXBean();
            Map<String, long[]> perParser = new java.util.LinkedHashMap<>();
            if (stats && !passFirst) {
                timeEachParser(paths, perParser, threads); // each parser alone, for scripts/bench facts
            }
            TimedRead first = timedRead(paths);
            BundleFacts read = first.facts();
            List<ArtifactFacts> results = read.artifacts().stream()
                    .map(a -> new ArtifactFacts(a.path(), a.type(), a.facts(), a.problemMessages())).toList();
            if (stats) {
                // the first reading in this JVM pays for loading and compiling its code as it goes (with --stats-pass-first
                // nothing ran before it; else each parser alone ran first, compiling the code they share with it)
                err.println(first.line("stats", read) + " first_in_jvm=" + passFirst);
                if (passFirst) {
                    timeEachParser(paths, perParser, threads);
                }
                perParser.forEach((name, t) -> err.printf(java.util.Locale.ROOT, "stats-parser: name=%s seconds=%.3f cpu_seconds=%.3f%n",
                        name, t[0] / 1e9, t[1] / 1e9));
                // the same reading once more in this JVM, its code compiled by now: what a server that has read a few
                // bundles spends
                TimedRead again = timedRead(paths);
                err.println(again.line("stats-again", again.facts()));
                err.flush();
            }
            if (json) {
                ObjectNode root = Facts.json().createObjectNode();
                root.set("artifacts", Facts.json().valueToTree(results));
                out.println(Facts.json().writeValueAsString(root));
            } else {
                printText(results, out);
            }
            read.budgetHits().forEach(h -> err.println("crashlab facts: budget reached: " + h.message()));
            out.flush();
            return 0;
        } catch (BundleRejectedException e) {
            err.println("crashlab facts: refused: " + e.getMessage());
            return 2;
        }
    }

    /** One timed reading: wall and whole-JVM CPU seconds, and the CPU seconds of the JIT compiler and GC threads in them. */
    private record TimedRead(BundleFacts facts, double seconds, double cpu, double jitCpu, double gcCpu) {
        String line(String label, BundleFacts read) {
            long bytes = read.artifacts().stream().mapToLong(ArtifactRead::bytesRead).sum();
            return String.format(java.util.Locale.ROOT, "%s: bytes=%d seconds=%.3f cpu_seconds=%.3f mb_per_s=%.1f peak_heap_mib=%.1f"
                            + " jit_cpu_seconds=%.2f gc_cpu_seconds=%.2f",
                    label, bytes, seconds, cpu, bytes / 1e6 / seconds, peakHeapBytes() / 1048576.0, jitCpu, gcCpu);
        }
    }

    // timed from after unpacking: staging a loose file copies and hashes it, as an upload does, not the reading
    private static TimedRead timedRead(List<Path> paths) throws IOException, BundleRejectedException {
        long[] at = {System.nanoTime(), processCpuNanos()};
        double[][] threadsAt = {jitGcThreadCpu()};
        BundleFacts read = OfflineBundle.readFacts(paths, p -> false, () -> {
            at[0] = System.nanoTime();
            at[1] = processCpuNanos();
            threadsAt[0] = jitGcThreadCpu();
        });
        // the whole process's CPU: the reading pass runs its consumers on virtual threads, and GC and JIT count too
        double seconds = (System.nanoTime() - at[0]) / 1e9;
        double cpu = (processCpuNanos() - at[1]) / 1e9;
        double[] t = jitGcThreadCpu();
        return new TimedRead(read, seconds, cpu, t[0] - threadsAt[0][0], t[1] - threadsAt[0][1]);
    }

    // The high-water mark of every heap pool: what streaming must keep small whatever the file size.
    /** Runs every parser for each file's type on its own, timing each (wall and thread CPU); the facts are dropped. */
    private static void timeEachParser(List<Path> paths, Map<String, long[]> perParser,
                                       java.lang.management.ThreadMXBean threads) throws IOException, BundleRejectedException {
        Path staging = Files.createTempDirectory("crashlab-facts-");
        dev.crashlab.sniff.ArtifactSniffer sniffer = new dev.crashlab.sniff.ArtifactSniffer();
        try (dev.crashlab.unpack.BundleUnpacker unpacker = new dev.crashlab.unpack.BundleUnpacker(
                dev.crashlab.unpack.UnpackLimits.defaults(), staging.resolve("files"))) {
            for (OfflineBundle.Item i : OfflineBundle.items(paths, unpacker)) {
                timed(new dev.crashlab.parse.ParseInput(i.path(), sniffer.sniff(i.path(), i.file()), i.file()), perParser, threads);
            }
        }
    }

    /** Parses with every parser for the type, timing each (wall and thread CPU). */
    private static ArtifactFacts timed(dev.crashlab.parse.ParseInput input, Map<String, long[]> perParser,
                                       java.lang.management.ThreadMXBean threads) {
        List<Fact> facts = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (dev.crashlab.parse.ArtifactParser p : dev.crashlab.parse.Parsers.forType(input.type())) {
            long t0 = System.nanoTime();
            long c0 = threads.getCurrentThreadCpuTime();
            try {
                dev.crashlab.parse.ParseResult r = p.parse(input);
                facts.addAll(r.facts());
                r.problems().forEach(x -> problems.add(x.getClass().getSimpleName() + ": " + x.message()));
            } catch (IOException | RuntimeException | StackOverflowError e) {
                problems.add("ParserFailure: " + p.name() + ": " + e);
            }
            long[] t = perParser.computeIfAbsent(p.name(), k -> new long[2]);
            t[0] += System.nanoTime() - t0;
            t[1] += threads.getCurrentThreadCpuTime() - c0;
        }
        return new ArtifactFacts(input.path(), input.type().name(), facts, problems);
    }

    private static long processCpuNanos() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    /**
     * CPU seconds so far of this JVM's JIT compiler threads and of its garbage collector threads (Linux: their
     * {@code /proc/self/task} entries; zeros elsewhere): what of the whole JVM's CPU time went to compiling and collecting
     * (a compiler thread the JVM stops meanwhile takes its time with it: then this counts less).
     */
    private static double[] jitGcThreadCpu() {
        double[] out = new double[2];
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return out;
        }
        try (var dirs = Files.list(tasks)) {
            for (Path t : (Iterable<Path>) dirs::iterator) {
                try {
                    String comm = Files.readString(t.resolve("comm")).strip();
                    int k = comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler") ? 0
                            : comm.startsWith("GC Thread") || comm.startsWith("G1 ") ? 1 : -1;
                    if (k < 0) {
                        continue;
                    }
                    String stat = Files.readString(t.resolve("stat"));
                    // fields after the ")" closing the name: state is field 3, utime 14, stime 15, in ticks of 1/100 s
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    out[k] += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
                } catch (IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    private static long peakHeapBytes() {
        long peak = 0;
        for (var pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == java.lang.management.MemoryType.HEAP && pool.getPeakUsage() != null) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak;
    }

    private static void printText(List<ArtifactFacts> results, PrintWriter out) {
        int facts = 0;
        for (ArtifactFacts a : results) {
            out.printf("== %s  (%s)%n", a.path(), a.type());
            for (Fact f : a.facts()) {
                facts++;
                out.printf("  %-18s %s%n", f.kind(), summary(f));
            }
            a.problems().forEach(p -> out.println("  ! " + p));
        }
        out.printf("%d file(s), %d fact(s)%n", results.size(), facts);
    }

    // One line per fact: its non-empty fields, then where it was read.
    private static String summary(Fact f) {
        Map<String, Object> fields = Facts.json().convertValue(f, new com.fasterxml.jackson.core.type.TypeReference<>() {});
        StringBuilder sb = new StringBuilder();
        for (Iterator<Map.Entry<String, Object>> it = fields.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Object> e = it.next();
            Object v = e.getValue();
            if (e.getKey().equals("kind") || e.getKey().equals("sources") || v == null
                    || (v instanceof java.util.Collection<?> c && c.isEmpty()) || (v instanceof Map<?, ?> m && m.isEmpty())) {
                continue;
            }
            sb.append(e.getKey()).append('=').append(v).append("  ");
        }
        List<SourceRef> sources = f.sources();
        if (!sources.isEmpty()) {
            sb.append("[line ").append(sources.getFirst().line());
            if (sources.size() > 1) {
                sb.append(" +").append(sources.size() - 1);
            }
            sb.append(']');
        }
        return sb.toString().strip();
    }
}
