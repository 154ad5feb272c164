package dev.crashlab.bench;

import dev.crashlab.cli.KnowledgeOptions;
import dev.crashlab.cli.OfflineBundle;

import dev.crashlab.crashes.CrashFacets;
import dev.crashlab.crashes.CrashIndex;
import dev.crashlab.crashes.CrashQuery;
import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.crashes.SignatureTerm;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
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
 * pool added), indexed on disk in a {@link CrashIndex} at up to three sizes, each a tenth of the next (N/100, N/10, N;
 * sizes under 1,000 are left out), each built from nothing in its own folder. At each size the requests a team's UI
 * makes (search with facet filters, a facet value's bundles, the counts of every facet, a group page, similar crashes,
 * full-text search with snippets) are timed, next to the same requests on PostgreSQL ({@link PgPeer}) over the same
 * bundles and, up to 100,000 bundles, next to naive in-process scans (whose similar crashes must agree with ours).
 * Then the growth of each request's time per 10x.
 */
@Command(name = "crashes",
        description = "Print index build time and size, and p50/p99 latency of the past-crash requests at N/100, N/10 and N synthetic"
                + " bundles, beside PostgreSQL, and their growth per 10x.")
final class CrashesBenchCommand implements Callable<Integer> {

    @Parameters(paramLabel = "DIR", description = "a folder of bundle folders whose signatures seed the synthetic ones")
    Path dir;

    @Option(names = "--bundles", defaultValue = "20000", description = "synthetic bundles at the largest size (default 20000)")
    int count;

    @Option(names = "--steps", defaultValue = "3", description = "sizes measured, each a tenth of the next (default 3)")
    int steps;

    @Option(names = "--queries", defaultValue = "500", description = "requests of each kind on our side (default 500)")
    int queries;

    @Option(names = "--peer-queries", defaultValue = "40",
            description = "requests of each kind for PostgreSQL and the in-process scans (default 40: PostgreSQL's facet counts"
                    + " over a million rows take seconds each)")
    int peerQueries;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the generator")
    long seed;

    @Option(names = "--pg", description = "JDBC URL of a PostgreSQL server: the benchmark creates a scratch database there, stores the"
            + " same bundles in it and runs each request kind as PostgreSQL full-text search with GROUP BY facets; it drops only"
            + " that database (scripts/bench starts a private server)")
    String pg;

    @Mixin
    KnowledgeOptions knowledge = new KnowledgeOptions();

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    // whether the similar crashes of ours and of the scan differed at some size (the exit status says so)
    private boolean disagreed;

    /** The largest size at which the in-process scans run (above it they take seconds per request). */
    static final int SCAN_LIMIT = 100_000;
    /** Bundles per {@link CrashIndex#putAll} call while building. */
    static final int BUILD_BATCH = 50_000;
    /** The bound the issue sets on every p99 of ours. */
    static final double P99_BOUND_MS = 50;

    private static final String[] GPUS = {"NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 4090",
        "NVIDIA GeForce RTX 2060", "NVIDIA GeForce GTX 1080 Ti", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3",
        "NVIDIA GeForce RTX 4070 Laptop GPU", "Tesla T4", "Tesla V100-SXM2-16GB", "NVIDIA RTX A6000", "NVIDIA L4"};
    private static final String[] TF = {"2.4", "2.5", "2.6", "2.8", "2.9", "2.10", "2.11", "2.12", "2.13", "2.15", "2.16"};
    private static final String[] CUDA = {"10.1", "11.0", "11.2", "11.8", "12.1", "12.4", "12.6"};

    /** The requests measured, in the order they print. */
    enum Kind {
        SEARCH("search: a word + three facet filters, facet counts, top 20"),
        FACETS("facets: one facet value's bundles, every facet's counts, newest 20"),
        FACETS_ALL("facets: every value's count over all bundles (no query yet)"),
        GROUP("group page: count, first/last, cause, daily, settings in/out, newest 50"),
        SIMILAR("similar crashes: top 5 by idf-weighted shared terms"),
        TEXT("search: a word, top 20 with snippets");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** One size's numbers: ours and the peers' request times (nanoseconds) by kind. */
    record Step(int size, Map<Kind, List<Long>> ours, Map<Kind, List<Long>> pg, Map<Kind, List<Long>> scan) {}

    /**
     * The requests of one size, drawn from its bundles so each matches at least the bundle it was drawn from.
     *
     * @param searches our query text and PostgreSQL's (word, three {@code dim:value} filters)
     * @param facets our one-value filter and PostgreSQL's {@code dim:value}
     * @param searchTotals how many bundles each search matches in our index (filled before the peer runs)
     */
    record Workload(List<String> searches, List<Object[]> pgSearches, List<String> facets, List<String> pgFacets, List<String> groups,
                    List<Integer> similar, List<String> words, List<Long> searchTotals) {}

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
        if (count < 1 || steps < 1 || queries < 1 || peerQueries < 1) {
            spec.commandLine().getErr().println("crashlab bench-crashes: --bundles, --steps, --queries and --peer-queries must be at least 1");
            return 2;
        }
        List<Integer> sizes = new ArrayList<>();
        for (int k = steps - 1; k >= 0; k--) {
            int size = (int) (count / Math.pow(10, k));
            if (size >= 1000 || k == 0) {
                sizes.add(size);
            }
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
        Set<String> groupKeys = new HashSet<>();
        sigs.forEach(s -> groupKeys.add(s.groupKey()));

        out.printf(Locale.ROOT, "past-crash benchmark: up to %,d synthetic bundles from %d real signatures in %s (%d groups), sizes %s;"
                        + " %d requests of each kind for ours, %d for the peers; %d cores, Java %s; load average %s%n",
                count, seeds.size(), dir, groupKeys.size(), sizes, queries, peerQueries, Runtime.getRuntime().availableProcessors(),
                Runtime.version(), loadAverage());
        out.flush();
        List<Step> done = new ArrayList<>();
        try (PgPeer peer = pg == null ? null : PgPeer.create(out, pg)) {
            for (int size : sizes) {
                done.add(step(out, peer, sigs.subList(0, size), uploaded, new Random(seed + size)));
            }
        }
        growth(out, done);
        Step last = done.getLast();
        boolean under = true;
        for (Kind k : Kind.values()) {
            under &= BenchStats.percentileMillis(last.ours().get(k), 99) < P99_BOUND_MS;
        }
        out.printf(Locale.ROOT, "%nevery p99 of ours at %,d bundles under %.0f ms: %s; load average at the end %s%n", last.size(), P99_BOUND_MS,
                under ? "yes" : "NO", loadAverage());
        out.flush();
        return disagreed ? 1 : 0;
    }

    private Step step(PrintWriter out, PgPeer peer, List<CrashSignature> sigs, long[] uploaded, Random rnd) throws Exception {
        int n = sigs.size();
        System.gc();
        long heap0 = usedHeap();
        Path indexDir = Files.createTempDirectory("crashlab-bench-index");
        try {
            long t0 = System.nanoTime();
            // on disk, as the server keeps it (a memory-mapped folder), committed once at the end of the build
            CrashIndex index = CrashIndex.open(indexDir);
            try {
                // the server's own write path (CrashIndex.putAll: the documents put writes), on every core, in batches
                int threads = Runtime.getRuntime().availableProcessors();
                for (int from = 0; from < n; from += BUILD_BATCH) {
                    List<CrashIndex.Entry> batch = new ArrayList<>(Math.min(BUILD_BATCH, n - from));
                    for (int i = from; i < Math.min(n, from + BUILD_BATCH); i++) {
                        batch.add(new CrashIndex.Entry(i + 1, sigs.get(i), uploaded[i], false));
                    }
                    index.putAll(batch, threads);
                }
                index.commit(Map.of());
                double buildSeconds = (System.nanoTime() - t0) / 1e9;
                System.gc();
                long heap = usedHeap() - heap0;
                long disk = size(indexDir);
                Workload w = workload(sigs, rnd);
                Map<Kind, List<Long>> ours = measure(index, w, queries);

                Map<Kind, List<Long>> scan = new EnumMap<>(Kind.class);
                int agree = 0;
                int scanned = Math.min(queries, peerQueries);
                if (n <= SCAN_LIMIT) {
                    Map<String, Integer> df = new HashMap<>(); // built once and not timed: the scan gets the same idf for free
                    sigs.forEach(s -> s.terms().forEach(t -> df.merge(t.key(), 1, Integer::sum)));
                    List<String> texts = sigs.stream().map(s -> (labels(s) + s.text()).toLowerCase(Locale.ROOT)).toList();
                    List<Long> sim = new ArrayList<>();
                    List<Long> text = new ArrayList<>();
                    for (int q = -Math.min(5, scanned); q < scanned; q++) {
                        int k = Math.max(q, 0);
                        long a = System.nanoTime();
                        double[] theirs = scan(sigs, df, w.similar().get(k) - 1, 5);
                        long b = System.nanoTime();
                        grep(texts, w.words().get(k), 20);
                        long c = System.nanoTime();
                        if (q >= 0) {
                            sim.add(b - a);
                            text.add(c - b);
                            double[] mine = index.similar(w.similar().get(k), 5).stream().mapToDouble(CrashIndex.Similar::similarity).toArray();
                            agree += sameScores(mine, theirs) ? 1 : 0;
                        }
                    }
                    scan.put(Kind.SIMILAR, sim);
                    scan.put(Kind.TEXT, text);
                }
                Map<Kind, List<Long>> theirs = new EnumMap<>(Kind.class);
                String pgBuild = "";
                int sameTotals = -1;
                if (peer != null) {
                    PgPeer.Loaded loaded = peer.load(sigs, uploaded);
                    pgBuild = String.format(Locale.ROOT, "; PostgreSQL: %.1f MiB (table, TOAST, indexes; %.2f KiB per bundle), built in %.1f s"
                            + " (%,.0f bundles/s: COPY, then the indexes)", loaded.bytes() / 1048576.0, loaded.bytes() / 1024.0 / n,
                            loaded.seconds(), n / loaded.seconds());
                    for (int q = 0; q < Math.min(queries, peerQueries); q++) {
                        w.searchTotals().add(index.query(CrashQuery.parse(w.searches().get(q)), 0, 1, 0, false).total());
                    }
                    PgPeer.Measured m = peer.measure(w, sigs, Math.min(queries, peerQueries));
                    theirs = m.times();
                    sameTotals = m.sameTotals();
                    peer.drop();
                }
                double members = 0;
                for (int q = 0; q < w.groups().size(); q++) {
                    members += index.query(CrashQuery.parse("group:" + w.groups().get(q)), 0, 1, 0, false).total();
                }
                out.printf(Locale.ROOT, "%n%,d bundles: index %.1f MiB on disk (%.2f KiB per bundle), built in %.1f s (%,.0f bundles/s),"
                                + " heap after build %.1f MiB (%.2f KiB per bundle)%s; the groups asked for have %,.0f bundles on average;"
                                + " load average %s%n", n, disk / 1048576.0, disk / 1024.0 / n, buildSeconds, n / buildSeconds,
                        heap / 1048576.0, heap / 1024.0 / n, pgBuild, members / w.groups().size(), loadAverage());
                out.printf(Locale.ROOT, "%-72s %8s %8s %9s %9s %9s%n", "request (peer: PostgreSQL, or an in-process scan where marked)",
                        "p50 ms", "p99 ms", "peer p50", "peer p99", "speed-up");
                for (Kind k : Kind.values()) {
                    List<Long> p = theirs.containsKey(k) ? theirs.get(k) : scan.get(k);
                    String label = k.label + (theirs.containsKey(k) || !scan.containsKey(k) ? "" : " (scan)");
                    row(out, label, ours.get(k), p);
                    if (theirs.containsKey(k) && scan.containsKey(k)) {
                        row(out, "  the same, peer: an in-process scan of every bundle", ours.get(k), scan.get(k));
                    }
                }
                if (n <= SCAN_LIMIT) {
                    out.printf(Locale.ROOT, "similar crashes agree with the scan (same top-5 similarities): %d of %d%n", agree, scanned);
                    disagreed |= agree != scanned;
                } else {
                    out.printf(Locale.ROOT, "(the in-process scans are left out above %,d bundles: seconds per request)%n", SCAN_LIMIT);
                }
                if (sameTotals >= 0) {
                    out.printf(Locale.ROOT, "searches with the same number of matches both ways: %d of %d (the analysers differ: LogAnalyzer"
                            + " splits compounds, PostgreSQL's 'simple' configuration does not)%n", sameTotals, Math.min(queries, peerQueries));
                }
                out.printf(Locale.ROOT, "(speed-up: the peer's p50 over ours; above 1 means ours is faster)%n");
                out.flush();
                return new Step(n, ours, theirs, scan);
            } finally {
                index.close();
            }
        } finally {
            try (Stream<Path> files = Files.walk(indexDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static Workload workload(List<CrashSignature> sigs, Random rnd) {
        int n = sigs.size();
        List<String> searches = new ArrayList<>();
        List<Object[]> pgSearches = new ArrayList<>();
        List<String> facets = new ArrayList<>();
        List<String> pgFacets = new ArrayList<>();
        List<String> groups = new ArrayList<>();
        List<Integer> similar = new ArrayList<>();
        List<String> words = new ArrayList<>();
        int want = 1000; // more than any run asks for; each kind cycles through its list
        int tries = 0;
        while (searches.size() < want && tries++ < 100 * want) {
            int i = rnd.nextInt(n);
            CrashSignature s = sigs.get(i);
            List<String> fs = new ArrayList<>(CrashFacets.values(s, false).stream()
                    .filter(v -> CrashFacets.DIMENSIONS.contains(v.substring(0, v.indexOf('\0')))).toList()); // listed dimensions only (verdict has no filter)
            String word = word(s, rnd);
            if (fs.size() < 3 || word == null || s.groupKey() == null) {
                continue;
            }
            Collections.shuffle(fs, rnd);
            List<String> three = fs.subList(0, 3);
            StringBuilder q = new StringBuilder(word);
            three.forEach(v -> q.append(' ').append(filter(v)));
            searches.add(q.toString());
            pgSearches.add(new Object[] {word, three.stream().map(v -> v.replace('\0', ':')).toArray(String[]::new)});
            facets.add(filter(fs.getFirst()));
            pgFacets.add(fs.getFirst().replace('\0', ':'));
            groups.add(s.groupKey());
            similar.add(i + 1);
            List<SignatureTerm> specific = s.terms().stream().filter(SignatureTerm::specific).toList();
            SignatureTerm t = specific.isEmpty() ? s.terms().getFirst() : specific.get(rnd.nextInt(specific.size()));
            String v = t.key().substring(t.key().indexOf(':') + 1);
            words.add(v.isBlank() ? "error" : v);
        }
        if (searches.isEmpty()) {
            throw new IllegalStateException("no bundle has a group, a text word and three facet values to query by");
        }
        return new Workload(searches, pgSearches, facets, pgFacets, groups, similar, words, new ArrayList<>());
    }

    private static String filter(String facetValue) {
        int sep = facetValue.indexOf('\0');
        return CrashFacets.filter(facetValue.substring(0, sep), facetValue.substring(sep + 1));
    }

    // Our side of each request kind, `count` times after a warm-up, interleaved so that load hits every kind alike.
    private static Map<Kind, List<Long>> measure(CrashIndex index, Workload w, int count) {
        Map<Kind, List<Long>> times = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            times.put(k, new ArrayList<>());
        }
        int warm = Math.min(100, count);
        int size = w.searches().size();
        for (int q = -warm; q < count; q++) {
            int i = Math.floorMod(q, size);
            for (Kind k : Kind.values()) {
                long a = System.nanoTime();
                switch (k) {
                    case SEARCH -> index.query(CrashQuery.parse(w.searches().get(i)), 0, 20, 8);
                    case FACETS -> index.query(CrashQuery.parse(w.facets().get(i)), 0, 20, 8);
                    case FACETS_ALL -> CrashIndex.facets(index.counts(null), 8);
                    case GROUP -> groupPage(index, w.groups().get(i));
                    case SIMILAR -> index.similar(w.similar().get(i), 5);
                    case TEXT -> index.search(w.words().get(i), 0, 20);
                }
                long b = System.nanoTime();
                if (q >= 0) {
                    times.get(k).add(b - a);
                }
            }
        }
        return times;
    }

    /**
     * What {@code CrashGroupService.group} asks of the index for a group's page: the group's summary (count, first and
     * last seen, confirmed, causes, crashes per day, the settings' counts in the group), the counts over all bundles and
     * the correlations from them, and the newest 50 with their facets.
     */
    static Object groupPage(CrashIndex index, String key) {
        CrashQuery.Parsed q = CrashQuery.parse("group:" + key);
        CrashIndex.GroupStats g = index.group(key);
        long start = java.time.LocalDate.now(java.time.ZoneOffset.UTC).minusDays(29).toEpochDay();
        int[] daily = new int[30];
        g.days().subMap(start, start + 30).forEach((day, n) -> daily[(int) (day - start)] = (int) (long) n);
        String cause = g.causes().entrySet().stream()
                .max(Comparator.comparingLong(e -> e.getValue().bundles() - e.getValue().confirmed() + 1_000_000L * e.getValue().confirmed()))
                .map(Map.Entry::getKey).orElse(null);
        Map<String, Long> inGroup = g.facets();
        Map<String, Long> all = index.counts(null);
        List<Object[]> correlations = new ArrayList<>();
        for (String dim : CrashFacets.SETTINGS) {
            String prefix = dim + "\0";
            all.forEach((k, n) -> {
                if (k.startsWith(prefix)) {
                    long in = inGroup.getOrDefault(k, 0L);
                    correlations.add(new Object[] {k, (double) in / Math.max(1, g.count()) - (double) n / index.size()});
                }
            });
        }
        correlations.sort(Comparator.comparingDouble(c -> -Math.abs((double) c[1])));
        return List.of(correlations.subList(0, Math.min(20, correlations.size())), index.query(q, 0, 50, 8), daily,
                cause == null ? "" : cause);
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

    // a lower-case word of the signature's text that both analysers keep whole: letters only, 4 to 20 of them
    private static String word(CrashSignature s, Random rnd) {
        List<String> words = new ArrayList<>(new LinkedHashSet<>(List.of(s.text().split("[^A-Za-z]+"))));
        words.removeIf(w -> w.length() < 4 || w.length() > 20);
        return words.isEmpty() ? null : words.get(rnd.nextInt(words.size())).toLowerCase(Locale.ROOT);
    }

    // The naive similar-crash search: score every other signature the same way CrashIndex does (idf-weighted Dice).
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
            double theirs = 0;
            for (String k : keys) {
                int d = df.getOrDefault(k, 0);
                theirs += Math.log(1 + (n - d + 0.5) / (d + 0.5));
            }
            // the idf-weighted Dice coefficient, as CrashIndex.similarity
            double s = total + theirs > 0 ? Math.min(1.0, 2 * shared / (total + theirs)) : 0;
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

    // The growth of each request's p50 and p99 from each size to the next (10x more bundles): 1x is flat, 10x linear.
    private static void growth(PrintWriter out, List<Step> steps) {
        if (steps.size() < 2) {
            return;
        }
        out.printf(Locale.ROOT, "%ncost growth per 10x bundles (time at the larger size over the smaller: 1x flat, 10x linear)%n");
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-72s", "request"));
        for (int i = 1; i < steps.size(); i++) {
            String span = short_(steps.get(i - 1).size()) + "->" + short_(steps.get(i).size());
            head.append(String.format(Locale.ROOT, " %17s %10s", span + " p50/p99", "PostgreSQL"));
        }
        out.println(head);
        for (Kind k : Kind.values()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-72s", k.label));
            for (int i = 1; i < steps.size(); i++) {
                Step a = steps.get(i - 1);
                Step b = steps.get(i);
                double p50 = ratio(a.ours().get(k), b.ours().get(k), 50);
                double p99 = ratio(a.ours().get(k), b.ours().get(k), 99);
                String peer = a.pg().containsKey(k) && b.pg().containsKey(k)
                        ? String.format(Locale.ROOT, "%.1fx", ratio(a.pg().get(k), b.pg().get(k), 50)) : "-";
                line.append(String.format(Locale.ROOT, " %17s %10s", String.format(Locale.ROOT, "%.1fx / %.1fx", p50, p99), peer));
            }
            out.println(line);
        }
    }

    private static String short_(int n) {
        return n % 1_000_000 == 0 ? n / 1_000_000 + "M" : n % 1000 == 0 ? n / 1000 + "k" : Integer.toString(n);
    }

    private static double ratio(List<Long> small, List<Long> large, int p) {
        return BenchStats.percentileMillis(large, p) / BenchStats.percentileMillis(small, p);
    }

    private static long size(Path dir) throws java.io.IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    private static void row(PrintWriter out, String what, List<Long> nanos, List<Long> peer) {
        double p50 = BenchStats.percentileMillis(nanos, 50);
        double p99 = BenchStats.percentileMillis(nanos, 99);
        if (peer == null || peer.isEmpty()) {
            out.printf(Locale.ROOT, "%-72s %8.3f %8.3f %9s %9s %9s%n", what, p50, p99, "-", "-", "-");
            return;
        }
        double peer50 = BenchStats.percentileMillis(peer, 50);
        out.printf(Locale.ROOT, "%-72s %8.3f %8.3f %9.3f %9.3f %9.1f%n", what, p50, p99, peer50, BenchStats.percentileMillis(peer, 99),
                peer50 / p50);
    }
}
