package dev.crashlab.bench;

import dev.crashlab.cli.KnowledgeOptions;
import dev.crashlab.cli.OfflineBundle;

import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.crashes.SignatureTerm;
import dev.crashlab.crashes.CrashIndex;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Measures past-crash search at scale ({@code scripts/bench crashes}): N synthetic bundles made from the real
 * signatures of the bundles in DIR (each with its GPU and versions redrawn and 0-2 libraries from a long-tailed
 * pool added), indexed in a {@link CrashIndex}; then similar-crash and full-text queries, each next to the
 * naive version of the same job in the same run: a scan of every signature with the same idf-weighted score,
 * and a lower-case substring scan of every bundle's text. The similar-crash results of both are compared.
 */
@Command(name = "crashes",
        description = "Print index build rate and p50/p99 latency of similar-crash and full-text search over N synthetic bundles.")
final class CrashesBenchCommand implements Callable<Integer> {

    @Parameters(paramLabel = "DIR", description = "a folder of bundle folders whose signatures seed the synthetic ones")
    Path dir;

    @Option(names = "--bundles", defaultValue = "20000", description = "synthetic bundles to index (default 20000)")
    int count;

    @Option(names = "--queries", defaultValue = "500", description = "queries of each kind (default 500)")
    int queries;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the generator")
    long seed;

    @Option(names = "--pg", description = "JDBC URL of a scratch PostgreSQL database: the same bundles are stored there and"
            + " each query kind is also run as PostgreSQL full-text search with GROUP BY facets (scripts/bench starts one)")
    String pg;

    @Mixin
    KnowledgeOptions knowledge = new KnowledgeOptions();

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    private static final String[] GPUS = {"NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 4090",
        "NVIDIA GeForce RTX 2060", "NVIDIA GeForce GTX 1080 Ti", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3",
        "NVIDIA GeForce RTX 4070 Laptop GPU", "Tesla T4", "Tesla V100-SXM2-16GB", "NVIDIA RTX A6000", "NVIDIA L4"};
    private static final String[] TF = {"2.4", "2.5", "2.6", "2.8", "2.9", "2.10", "2.11", "2.12", "2.13", "2.15", "2.16"};
    private static final String[] CUDA = {"10.1", "11.0", "11.2", "11.8", "12.1", "12.4", "12.6"};

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        DiagnosisEngine engine = KnowledgeOptions.engine(knowledge.load());
        List<CrashSignature> seeds = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path b : s.filter(Files::isDirectory).sorted().toList()) {
                DiagnosisInput in = OfflineBundle.read(List.of(b), p -> p.equals("meta.json"));
                seeds.add(CrashSignature.of(b.getFileName().toString(), List.of(), in.facts(), engine.diagnose(in)));
            }
        }
        if (seeds.isEmpty()) {
            spec.commandLine().getErr().println("crashlab bench-crashes: no bundle folders in " + dir);
            return 2;
        }
        Random rnd = new Random(seed);
        List<CrashSignature> sigs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            sigs.add(synthesize(seeds.get(rnd.nextInt(seeds.size())), i, rnd));
        }

        long now = System.currentTimeMillis();
        long[] uploaded = new long[count];
        for (int i = 0; i < count; i++) {
            uploaded[i] = now - (long) (rnd.nextDouble() * 90 * 86_400_000L); // the last 90 days
        }

        System.gc();
        long heap0 = usedHeap();
        long t0 = System.nanoTime();
        // on disk, as the server keeps it (a memory-mapped folder), committed once at the end of the build
        Path indexDir = Files.createTempDirectory("crashlab-bench-index");
        CrashIndex index = CrashIndex.open(indexDir);
        for (int i = 0; i < count; i++) {
            index.put(new CrashIndex.Entry(i + 1, sigs.get(i), uploaded[i], false));
        }
        index.commit(Map.of());
        double buildSeconds = (System.nanoTime() - t0) / 1e9;
        System.gc();
        long heap = usedHeap() - heap0;
        long disk;
        try (Stream<Path> files = Files.walk(indexDir)) {
            disk = files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
        out.printf(Locale.ROOT, "index on disk: %,d bundles in %.1f MiB, %.2f KiB per bundle (%s)%n", count, disk / 1048576.0,
                disk / 1024.0 / count, indexDir);

        // the peer's df table is built once and not timed: it gets the same idf for free
        Map<String, Integer> df = new HashMap<>();
        sigs.forEach(s -> s.terms().forEach(t -> df.merge(t.key(), 1, Integer::sum)));
        List<String> texts = sigs.stream().map(s -> (labels(s) + s.text()).toLowerCase(Locale.ROOT)).toList();

        int[] ids = new int[queries];
        for (int q = 0; q < queries; q++) {
            ids[q] = 1 + rnd.nextInt(count);
        }
        List<String> words = new ArrayList<>();
        for (int q = 0; q < queries; q++) {
            CrashSignature s = sigs.get(rnd.nextInt(count));
            List<SignatureTerm> specific = s.terms().stream().filter(SignatureTerm::specific).toList();
            SignatureTerm t = specific.isEmpty() ? s.terms().getFirst() : specific.get(rnd.nextInt(specific.size()));
            String v = t.key().substring(t.key().indexOf(':') + 1);
            words.add(v.isBlank() ? "error" : v);
        }
        for (int w = 0; w < 2; w++) { // warm-up
            for (int q = 0; q < Math.min(100, queries); q++) {
                index.similar(ids[q], 5);
                scan(sigs, df, ids[q] - 1, 5);
                index.search(words.get(q), 0, 20);
                grep(texts, words.get(q), 20);
            }
        }
        List<Long> sim = new ArrayList<>();
        List<Long> simPeer = new ArrayList<>();
        List<Long> search = new ArrayList<>();
        List<Long> searchPeer = new ArrayList<>();
        int agree = 0;
        for (int q = 0; q < queries; q++) {
            long a = System.nanoTime();
            List<CrashIndex.Similar> ours = index.similar(ids[q], 5);
            long b = System.nanoTime();
            double[] theirs = scan(sigs, df, ids[q] - 1, 5);
            long c = System.nanoTime();
            index.search(words.get(q), 0, 20);
            long d = System.nanoTime();
            grep(texts, words.get(q), 20);
            long e = System.nanoTime();
            sim.add(b - a);
            simPeer.add(c - b);
            search.add(d - c);
            searchPeer.add(e - d);
            double[] mine = ours.stream().mapToDouble(CrashIndex.Similar::similarity).toArray();
            if (sameScores(mine, theirs)) {
                agree++;
            }
        }
        out.printf(Locale.ROOT, "%npast-crash benchmark: %,d synthetic bundles from %d real signatures in %s, %d queries each, %d cores, Java %s%n",
                count, seeds.size(), dir, queries, Runtime.getRuntime().availableProcessors(), Runtime.version());
        out.printf(Locale.ROOT, "index build: %,.0f bundles/s (%.2f s), heap after build %.1f MiB (%.1f KiB per bundle)%n",
                count / buildSeconds, buildSeconds, heap / 1048576.0, heap / 1024.0 / count);
        out.printf(Locale.ROOT, "%-62s %9s %9s %9s%n", "what", "p50 ms", "p99 ms", "speed-up");
        row(out, "similar crashes: CrashIndex.similar, top 5", sim, simPeer);
        row(out, "peer: scan every signature, same idf-weighted score", simPeer, simPeer);
        row(out, "search: CrashIndex.search, top 20 with snippets", search, searchPeer);
        row(out, "peer: lower-case substring scan of every bundle's text", searchPeer, searchPeer);
        out.printf(Locale.ROOT, "similar crashes agree with the scan (same top-5 similarities): %d of %d queries%n", agree, queries);
        out.printf(Locale.ROOT, "(speed-up: the peer's p50 over ours; above 1 means ours is faster)%n");
        out.flush();
        if (pg != null) {
            new PgPeer(out, pg).run(index, sigs, uploaded, heap, disk, buildSeconds, queries, new Random(seed + 1));
        }
        index.close();
        try (Stream<Path> files = Files.walk(indexDir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        return agree == queries ? 0 : 1;
    }

    private static CrashSignature synthesize(CrashSignature seed, int i, Random rnd) {
        List<SignatureTerm> terms = new ArrayList<>();
        for (SignatureTerm t : seed.terms()) {
            switch (t.kind()) {
                case "gpu" -> terms.add(new SignatureTerm("gpu:" + GPUS[rnd.nextInt(GPUS.length)], "GPU", false));
                case "tensorflow" -> terms.add(new SignatureTerm("tensorflow:" + TF[rnd.nextInt(TF.length)], "tensorflow", false));
                case "cuda-runtime" -> terms.add(new SignatureTerm("cuda-runtime:" + CUDA[rnd.nextInt(CUDA.length)], "cuda", false));
                default -> terms.add(t);
            }
        }
        int extra = rnd.nextInt(3);
        for (int k = 0; k < extra; k++) {
            // long-tailed: a few libraries are common, most are rare
            int lib = (int) Math.floor(Math.pow(rnd.nextDouble(), 3) * 5000);
            String name = "libsynth" + lib + ".so";
            terms.add(new SignatureTerm("lib:" + name, "cannot load " + name, true));
        }
        return seed.with(terms.stream().distinct().toList(), seed.text() + "\n\nsynthetic run " + i);
    }

    // The naive similar-crash search: score every other signature the same way CrashIndex does.
    private static double[] scan(List<CrashSignature> sigs, Map<String, Integer> df, int self, int limit) {
        CrashSignature mine = sigs.get(self);
        int n = sigs.size();
        Map<String, Double> idf = new HashMap<>();
        double total = 0;
        for (SignatureTerm t : mine.terms()) {
            int d = df.getOrDefault(t.key(), 0);
            double w = Math.log(1 + (n - d + 0.5) / (d + 0.5));
            idf.put(t.key(), w);
            total += w;
        }
        double[] best = new double[limit];
        int found = 0;
        for (int j = 0; j < n; j++) {
            if (j == self) {
                continue;
            }
            Set<String> keys = new HashSet<>();
            sigs.get(j).terms().forEach(t -> keys.add(t.key()));
            double shared = 0;
            boolean specific = false;
            for (SignatureTerm t : mine.terms()) {
                if (keys.contains(t.key())) {
                    shared += idf.get(t.key());
                    specific |= t.specific();
                }
            }
            if (!specific) {
                continue;
            }
            double s = Math.min(1.0, shared / total);
            if (found < limit) {
                best[found++] = s;
                Arrays.sort(best, 0, found);
            } else if (s > best[0]) {
                best[0] = s;
                Arrays.sort(best, 0, limit);
            }
        }
        double[] out = Arrays.copyOf(best, found);
        Arrays.sort(out);
        for (int k = 0; k < out.length / 2; k++) {
            double tmp = out[k];
            out[k] = out[out.length - 1 - k];
            out[out.length - 1 - k] = tmp;
        }
        return out;
    }

    private static int grep(List<String> texts, String word, int limit) {
        String w = word.toLowerCase(Locale.ROOT);
        int hits = 0;
        for (String t : texts) {
            if (t.contains(w)) {
                hits++;
            }
        }
        return Math.min(hits, limit);
    }

    private static boolean sameScores(double[] a, double[] b) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (Math.abs(a[i] - b[i]) > 1e-9) {
                return false;
            }
        }
        return true;
    }

    private static String labels(CrashSignature s) {
        StringBuilder sb = new StringBuilder();
        s.terms().forEach(t -> sb.append(t.label()).append('\n'));
        return sb.toString();
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    private static void row(PrintWriter out, String what, List<Long> nanos, List<Long> peer) {
        double p50 = percentile(nanos, 50);
        out.printf(Locale.ROOT, "%-62s %9.3f %9.3f %9.1f%n", what, p50, percentile(nanos, 99), percentile(peer, 50) / p50);
    }

    private static double percentile(List<Long> nanos, int p) {
        return BenchStats.percentileMillis(nanos, p);
    }
}
