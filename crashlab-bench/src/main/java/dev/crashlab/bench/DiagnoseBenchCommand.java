package dev.crashlab.bench;

import dev.crashlab.cli.KnowledgeOptions;
import dev.crashlab.cli.OfflineBundle;

import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.reader.ArtifactRead;
import dev.crashlab.reader.FactsJson;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.diagnose.TextLine;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.search.Bm25Baseline;
import dev.crashlab.search.KbIndex;
import dev.crashlab.search.MiniLmEmbedder;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Measures diagnosis and KB search latency in-process and warm, each next to plain Lucene BM25 doing the
 * naive version of the same job in the same run ({@code scripts/bench diagnose} drives it).
 */
@Command(name = "diagnose",
        description = "Print p50/p99 diagnosis latency over the bundles in DIR and KB search latency over N queries.")
final class DiagnoseBenchCommand implements Callable<Integer> {

    @Parameters(paramLabel = "DIR", description = "a folder of bundle folders (a case's meta.json is left out)")
    Path dir;

    @Option(names = "--rounds", defaultValue = "20", description = "timed passes over all bundles (default 20)")
    int rounds;

    @Option(names = "--queries", defaultValue = "1000", description = "KB search queries (default 1000)")
    int queries;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the query generator")
    long seed;

    @Mixin
    KnowledgeOptions knowledge = new KnowledgeOptions();

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException, BundleRejectedException {
        PrintWriter out = spec.commandLine().getOut();
        KnowledgeSource source = knowledge.load();
        DiagnosisEngine engine = KnowledgeOptions.engine(source);
        KbIndex index = KbIndex.build(source.kb());
        Bm25Baseline bm25 = Bm25Baseline.build(source.kb());
        List<Path> bundles;
        try (Stream<Path> s = Files.list(dir)) {
            bundles = s.filter(Files::isDirectory).sorted().toList();
        }
        List<DiagnosisInput> inputs = new ArrayList<>();
        for (Path b : bundles) {
            inputs.add(OfflineBundle.read(List.of(b), p -> p.equals("meta.json")));
        }
        List<String> texts = inputs.stream().map(i -> i.lines().stream().map(TextLine::text).collect(Collectors.joining("\n"))).toList();
        // warm-up: the JIT compiles the pipeline before anything is timed
        for (int r = 0; r < 5; r++) {
            inputs.forEach(engine::diagnose);
            texts.forEach(bm25::rank);
        }
        List<Long> diag = new ArrayList<>();
        List<Long> base = new ArrayList<>();
        List<Long> whole = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < inputs.size(); i++) {
                long t0 = System.nanoTime();
                engine.diagnose(inputs.get(i));
                long t1 = System.nanoTime();
                bm25.rank(texts.get(i));
                long t2 = System.nanoTime();
                diag.add(t1 - t0);
                base.add(t2 - t1);
            }
        }
        for (int r = 0; r < Math.max(1, rounds / 5); r++) {
            for (Path b : bundles) {
                long t0 = System.nanoTime();
                engine.diagnose(OfflineBundle.read(List.of(b), p -> p.equals("meta.json")));
                whole.add(System.nanoTime() - t0);
            }
        }
        // what the server now does on a KB change or a confirmation: decode the stored facts and windows, diagnose
        List<List<String[]>> storedForms = new ArrayList<>();
        for (Path b : bundles) {
            List<String[]> rows = new ArrayList<>();
            for (ArtifactRead a : OfflineBundle.readFacts(List.of(b), p -> p.equals("meta.json")).artifacts()) {
                rows.add(new String[] {a.path(), FactsJson.facts(a.facts()), FactsJson.window(a.window())});
            }
            storedForms.add(rows);
        }
        for (int r = 0; r < 5; r++) {
            storedForms.forEach(f -> engine.diagnose(fromStored(f)));
        }
        List<Long> stored = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (List<String[]> f : storedForms) {
                long t0 = System.nanoTime();
                engine.diagnose(fromStored(f));
                stored.add(System.nanoTime() - t0);
            }
        }
        List<String> qs = queries(source, new Random(seed), queries);
        for (int r = 0; r < 2; r++) {
            qs.forEach(q -> index.search(q, 10));
        }
        List<Long> search = new ArrayList<>();
        List<Long> plain = new ArrayList<>();
        for (String q : qs) {
            long t0 = System.nanoTime();
            index.search(q, 10);
            long t1 = System.nanoTime();
            bm25.rank(q);
            long t2 = System.nanoTime();
            search.add(t1 - t0);
            plain.add(t2 - t1);
        }
        out.printf(Locale.ROOT, "%ndiagnose benchmark: %d bundles x %d rounds after 5 warm-up rounds, %d articles, in-process, %d cores, Java %s%n",
                bundles.size(), rounds, source.kb().articles().size(), Runtime.getRuntime().availableProcessors(), Runtime.version());
        out.printf(Locale.ROOT, "%-58s %9s %9s %7s%n", "what", "p50 ms", "p99 ms", "x peer");
        row(out, "diagnose (facts in hand: rules, compat, similarity, rank)", diag, base);
        row(out, "recompute from stored facts (decode JSON + diagnose; no DB)", stored, base);
        row(out, "re-parse: diagnose incl. unpack + sniff + parse (before #13)", whole, base);
        row(out, "peer: plain Lucene BM25 of the bundle text vs articles", base, base);
        out.printf(Locale.ROOT, "%nKB search benchmark: %d queries (seed %d: article words, codes, typos), after 2 warm-up passes%n", qs.size(), seed);
        out.printf(Locale.ROOT, "%-58s %9s %9s %7s%n", "what", "p50 ms", "p99 ms", "x peer");
        row(out, "KbIndex.search (domain analyzer, fuzzy, snippets)", search, plain);
        row(out, "peer: plain Lucene BM25 (standard analyzer, no snippets)", plain, plain);
        out.flush();
        meaning(out, source, qs, plain);
        return 0;
    }

    /**
     * What search by meaning costs: loading the model, embedding the articles' passages (their vectors' size), and
     * the hybrid search of queries the embedder has not seen (its cache would otherwise answer), next to the
     * words-only search of the same queries and to plain BM25.
     */
    private void meaning(PrintWriter out, KnowledgeSource source, List<String> seen, List<Long> plain) {
        MiniLmEmbedder embedder = MiniLmEmbedder.shared();
        long rss0 = rssKib();
        KbIndex hybrid = KbIndex.build(source.kb(), embedder);
        KbIndex words = KbIndex.build(source.kb());
        long t0 = System.nanoTime();
        hybrid.warm();
        long warmMillis = (System.nanoTime() - t0) / 1_000_000;
        long rss1 = rssKib();
        KbIndex.MeaningStats stats = hybrid.meaningStats();
        int articles = source.kb().articles().size();
        // a second build: the passages again, from the embedder's cache, is what a KB reload of unchanged articles costs
        long t1 = System.nanoTime();
        KbIndex.build(source.kb(), embedder).warm();
        long rebuildMillis = (System.nanoTime() - t1) / 1_000_000;
        int n = Math.min(300, Math.max(1, queries));
        List<String> warmup = queries(source, new Random(seed + 1), 50);
        warmup.forEach(q -> hybrid.search(q, 10));
        java.util.Set<String> fresh = new java.util.LinkedHashSet<>(queries(source, new Random(seed + 2), n * 2));
        fresh.removeAll(seen);
        fresh.removeAll(warmup);
        List<String> qs = new ArrayList<>(fresh).subList(0, Math.min(n, fresh.size()));
        List<Long> both = new ArrayList<>();
        List<Long> wordsOnly = new ArrayList<>();
        List<Long> embedOnly = new ArrayList<>();
        List<String> uncached = queries(source, new Random(seed + 3), n).stream().map(q -> q + " (embedding only)").toList();
        for (int i = 0; i < qs.size(); i++) {
            long a = System.nanoTime();
            hybrid.search(qs.get(i), 10);
            long b = System.nanoTime();
            words.search(qs.get(i), 10);
            long c = System.nanoTime();
            embedder.embed(uncached.get(i));
            long d = System.nanoTime();
            both.add(b - a);
            wordsOnly.add(c - b);
            embedOnly.add(d - c);
        }
        out.printf(Locale.ROOT, "%nKB search by meaning: all-MiniLM-L6-v2 (ONNX Runtime, in-process), %d articles%n", articles);
        out.printf(Locale.ROOT, "  model load %d ms (once per JVM); articles embedded: %d passages in %d ms (%.1f ms an article, %.1f ms a passage, model load included)%n",
                embedder.loadMillis(), stats.passages(), warmMillis, (double) warmMillis / articles, (double) warmMillis / stats.passages());
        out.printf(Locale.ROOT, "  vector index: %d vectors x %d floats = %.1f KiB; the process's resident memory after the model and vectors %+d MiB (Java heap and native); a reload of unchanged articles %d ms%n",
                stats.passages(), embedder.dimension(), stats.vectorBytes() / 1024.0, (rss1 - rss0) / 1024, rebuildMillis);
        out.printf(Locale.ROOT, "  %d queries the embedder had not seen, after 50 warm-up queries%n", qs.size());
        out.printf(Locale.ROOT, "%-58s %9s %9s %7s%n", "what", "p50 ms", "p99 ms", "x peer");
        row(out, "KbIndex.search with meaning (embed query + kNN + words)", both, plain);
        row(out, "KbIndex.search words only (same queries)", wordsOnly, plain);
        row(out, "embedding one query alone (MiniLmEmbedder.embed)", embedOnly, plain);
        row(out, "peer: plain Lucene BM25 (standard analyzer, no snippets)", plain, plain);
        out.flush();
    }

    // The process's resident set (Linux), in KiB; 0 where /proc is absent.
    private static long rssKib() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no number
        }
        return 0;
    }

    private static DiagnosisInput fromStored(List<String[]> rows) {
        List<dev.crashlab.fact.Fact> facts = new ArrayList<>();
        List<TextLine> lines = new ArrayList<>();
        for (String[] r : rows) {
            facts.addAll(FactsJson.readFacts(r[1]));
            lines.addAll(FactsJson.readWindow(r[0], r[2]));
        }
        return new DiagnosisInput(dev.crashlab.fact.Facts.dedupe(facts), lines);
    }

    private static void row(PrintWriter out, String what, List<Long> nanos, List<Long> peer) {
        double p50 = percentile(nanos, 50);
        out.printf(Locale.ROOT, "%-58s %9.3f %9.3f %7.1f%n", what, p50, percentile(nanos, 99), p50 / percentile(peer, 50));
    }

    private static double percentile(List<Long> nanos, int p) {
        return BenchStats.percentileMillis(nanos, p);
    }

    // Queries a user might type: an article's words, a code from its matchers, sometimes with a typo.
    private static List<String> queries(KnowledgeSource source, Random rnd, int n) {
        List<String> words = new ArrayList<>();
        for (KbArticle a : source.kb().articles()) {
            for (String w : (a.title() + " " + a.body()).split("[^A-Za-z0-9_.]+")) {
                if (w.length() >= 4 && w.length() <= 30) {
                    words.add(w);
                }
            }
        }
        words.addAll(List.of("0xC0000409", "-1073740791", "zlibwapi.dll", "cudart64_110.dll", "CUDNN_STATUS_INTERNAL_ERROR", "Xid 79"));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = 1 + rnd.nextInt(3);
            StringBuilder q = new StringBuilder();
            for (int j = 0; j < k; j++) {
                String w = words.get(rnd.nextInt(words.size()));
                if (rnd.nextInt(5) == 0 && w.length() > 5) {
                    int at = 1 + rnd.nextInt(w.length() - 2);
                    w = w.substring(0, at) + w.charAt(at + 1) + w.charAt(at) + w.substring(at + 2); // swap two letters
                }
                q.append(j == 0 ? "" : " ").append(w);
            }
            out.add(q.toString());
        }
        return out;
    }
}
