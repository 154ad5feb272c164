import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * scripts/bench load: N concurrent clients (virtual threads, java.net.http) against a running CrashLab for D seconds,
 * mixing uploads of corpus-like bundles, report reads, past-crash searches and KB searches; prints requests/s,
 * p50/p99/p99.9 and the count over 1 s per kind and the 5xx count, then per kind the server's own time and its waits
 * by what (two scrapes of {@code /q/metrics}: {@code http_server_requests_seconds}, {@code crashlab_wait_seconds}), the
 * background waits and the connection pool's; then checks every accepted bundle: stored, every artifact downloads
 * byte for byte as uploaded, and diagnosed.
 *
 * <p>Run by scripts/bench with Jackson on the class path (java's source-file mode):
 * {@code java -cp 'crashlab-server/target/pg/lib/main/*' scripts/lib/LoadBench.java URL TOKEN SECONDS CLIENTS CORPUS}.
 * Corpus files are read in place; the bundles are zipped in memory.
 */
public final class LoadBench {

    static final ObjectMapper JSON = new ObjectMapper();

    /** One kind of request: its share of the mix, its latencies, its status counts. */
    static final class Kind {
        final String name;
        final int weight;
        /** The resource methods (the {@code route} tag of {@code crashlab_wait_seconds}) and URI templates it calls. */
        final List<String> routes;
        final List<String> uris;
        final List<Long> nanos = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong ok = new AtomicLong();
        final AtomicLong client = new AtomicLong();
        final AtomicLong server = new AtomicLong();
        final AtomicLong failed = new AtomicLong();

        Kind(String name, int weight, List<String> routes, List<String> uris) {
            this.name = name;
            this.weight = weight;
            this.routes = routes;
            this.uris = uris;
        }
    }

    /** A bundle as uploaded: its files by path. */
    record Sent(String name, Map<String, byte[]> files) {}

    // HTTP/1.1, as a browser speaks to an http:// origin: the client's default upgrade to cleartext HTTP/2 put all
    // clients on one connection, one event loop and one lock (88 s of request threads blocked on it in a 60 s run)
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10))
            .executor(Executors.newVirtualThreadPerTaskExecutor()).build();
    final String base;
    final String token;
    final List<Path> cases;
    final List<Path> extras;
    final List<String> words;
    final Map<Long, Sent> accepted = new ConcurrentHashMap<>();
    final List<Long> ids = new CopyOnWriteArrayList<>();
    final List<String> serverErrors = new CopyOnWriteArrayList<>();
    final List<String> clientErrors = new CopyOnWriteArrayList<>();
    final AtomicLong seq = new AtomicLong();

    final Kind upload = new Kind("upload a bundle (POST /api/bundles, zip)", 10, List.of("BundleResource.uploadArchive"),
            List.of("/bundles"));
    final Kind report = new Kind("read a report (GET bundle, diagnosis or facts)", 40,
            List.of("BundleResource.get", "DiagnosisResource.diagnosis", "BundleResource.facts"),
            List.of("/bundles/{id}", "/bundles/{id}/diagnosis", "/bundles/{id}/facts"));
    final Kind crashSearch = new Kind("past-crash search (GET /api/bundles/search)", 25, List.of("CrashSearchResource.search"),
            List.of("/bundles/search"));
    final Kind kbSearch = new Kind("KB search (GET /api/kb/search)", 25, List.of("KbResource.search"), List.of("/kb/search"));
    final List<Kind> kinds = List.of(upload, report, crashSearch, kbSearch);

    LoadBench(String base, String token, Path corpus) throws IOException {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.token = token;
        try (Stream<Path> s = Files.list(corpus.resolve("crash-bundles"))) {
            cases = s.filter(Files::isDirectory).sorted().toList();
        }
        List<Path> more = new ArrayList<>();
        for (String dir : List.of("nvidia-smi", "env-listings")) {
            Path d = corpus.resolve(dir);
            if (Files.isDirectory(d)) {
                try (Stream<Path> s = Files.walk(d)) {
                    s.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(".txt") || p.toString().endsWith(".csv"))
                            .filter(p -> sizeOf(p) < 256 * 1024).sorted().forEach(more::add);
                }
            }
        }
        extras = more;
        List<String> w = new ArrayList<>();
        for (Path c : cases) {
            Path meta = c.resolve("meta.json");
            if (Files.exists(meta)) {
                JsonNode m = JSON.readTree(meta.toFile());
                m.path("signals").forEach(n -> w.add(n.asText()));
                m.path("labels").forEach(n -> w.add(n.asText().replace('-', ' ')));
            }
        }
        w.addAll(List.of("cudnn", "out of memory", "0xC0000409", "cudart64_110.dll", "illegal instruction", "driver"));
        words = w.stream().filter(x -> !x.isBlank() && x.length() < 80).map(x -> x.replaceAll("[\"():\\\\]", " ").strip())
                .filter(x -> !x.isEmpty()).toList();
        if (cases.isEmpty()) {
            throw new IOException("no crash bundles under " + corpus.resolve("crash-bundles"));
        }
    }

    static long sizeOf(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    /** A corpus case's files (meta.json left out), sometimes with an nvidia-smi or environment listing, and a unique note. */
    Sent bundle(Random rnd) throws IOException {
        Path c = cases.get(rnd.nextInt(cases.size()));
        Map<String, byte[]> files = new LinkedHashMap<>();
        try (Stream<Path> s = Files.walk(c)) {
            for (Path f : s.filter(Files::isRegularFile).sorted().toList()) {
                String rel = c.relativize(f).toString().replace('\\', '/');
                if (!rel.equals("meta.json")) {
                    files.put(rel, Files.readAllBytes(f));
                }
            }
        }
        if (!extras.isEmpty() && rnd.nextBoolean()) {
            Path x = extras.get(rnd.nextInt(extras.size()));
            files.putIfAbsent("extra/" + x.getFileName(), Files.readAllBytes(x));
        }
        files.put("load-run.txt", ("load run upload " + seq.incrementAndGet() + " " + rnd.nextLong() + "\n").getBytes(StandardCharsets.UTF_8));
        return new Sent("load-" + c.getFileName() + "-" + seq.get(), files);
    }

    static byte[] zip(Map<String, byte[]> files) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(out)) {
            for (Map.Entry<String, byte[]> e : files.entrySet()) {
                z.putNextEntry(new ZipEntry(e.getKey()));
                z.write(e.getValue());
                z.closeEntry();
            }
        }
        return out.toByteArray();
    }

    HttpRequest.Builder req(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(120))
                .header("Authorization", "Bearer " + token);
    }

    /** Sends one request of {@code kind}, timing it and counting its status; returns the response or null. */
    HttpResponse<byte[]> send(Kind kind, HttpRequest request, boolean timed) {
        long t0 = System.nanoTime();
        try {
            HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            long t = System.nanoTime() - t0;
            if (timed) {
                kind.nanos.add(t);
                if (r.statusCode() >= 500) {
                    kind.server.incrementAndGet();
                    if (serverErrors.size() < 10) {
                        serverErrors.add(r.statusCode() + " " + request.method() + " " + request.uri().getPath() + ": "
                                + new String(r.body(), 0, Math.min(r.body().length, 300), StandardCharsets.UTF_8));
                    }
                } else if (r.statusCode() >= 400) {
                    kind.client.incrementAndGet();
                    if (clientErrors.size() < 5) {
                        clientErrors.add(r.statusCode() + " " + request.method() + " " + request.uri() + ": "
                                + new String(r.body(), 0, Math.min(r.body().length, 300), StandardCharsets.UTF_8));
                    }
                } else {
                    kind.ok.incrementAndGet();
                }
            }
            return r;
        } catch (IOException e) {
            if (timed) {
                kind.failed.incrementAndGet();
                if (serverErrors.size() < 10) {
                    serverErrors.add("no response: " + request.method() + " " + request.uri().getPath() + ": " + e);
                }
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    void doUpload(Random rnd, boolean timed) throws IOException {
        Sent s = bundle(rnd);
        HttpRequest r = req("/api/bundles?name=" + enc(s.name())).header("Content-Type", "application/zip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(zip(s.files()))).build();
        HttpResponse<byte[]> resp = send(upload, r, timed);
        if (resp != null && resp.statusCode() == 201) {
            long id = JSON.readTree(resp.body()).path("id").asLong();
            accepted.put(id, s);
            ids.add(id);
        }
    }

    void doReport(Random rnd) {
        if (ids.isEmpty()) {
            return;
        }
        long id = ids.get(rnd.nextInt(ids.size()));
        String path = switch (rnd.nextInt(3)) {
            case 0 -> "/api/bundles/" + id;
            case 1 -> "/api/bundles/" + id + "/diagnosis";
            default -> "/api/bundles/" + id + "/facts";
        };
        send(report, req(path).GET().build(), true);
    }

    void doCrashSearch(Random rnd) {
        String q = switch (rnd.nextInt(5)) {
            case 0 -> "cuda:11.*";
            case 1 -> "cudnn:8.* OR tensorflow:>=2.4";
            case 2 -> "exit:0xC0000409 OR exception:RuntimeError";
            default -> "\"" + words.get(rnd.nextInt(words.size())) + "\"";
        };
        send(crashSearch, req("/api/bundles/search?q=" + enc(q)).GET().build(), true);
    }

    void doKbSearch(Random rnd) {
        send(kbSearch, req("/api/kb/search?q=" + enc(words.get(rnd.nextInt(words.size())))).GET().build(), true);
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    void client(long seed, long until) {
        Random rnd = new Random(seed);
        int total = kinds.stream().mapToInt(k -> k.weight).sum();
        while (System.nanoTime() < until) {
            int pick = rnd.nextInt(total);
            try {
                if ((pick -= upload.weight) < 0) {
                    doUpload(rnd, true);
                } else if ((pick -= report.weight) < 0) {
                    doReport(rnd);
                } else if ((pick -= crashSearch.weight) < 0) {
                    doCrashSearch(rnd);
                } else {
                    doKbSearch(rnd);
                }
            } catch (IOException | RuntimeException e) {
                serverErrors.add("client error: " + e);
            }
        }
    }

    /** The server's Prometheus series ({@code /q/metrics}) by their full name with labels; empty if it has none. */
    Map<String, Double> scrape() {
        Map<String, Double> out = new java.util.HashMap<>();
        try {
            HttpResponse<String> r = http.send(req("/q/metrics").GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return out;
            }
            for (String line : r.body().split("\n")) {
                int sp = line.lastIndexOf(' ');
                if (line.startsWith("#") || sp < 0) {
                    continue;
                }
                try {
                    out.put(line.substring(0, sp), Double.parseDouble(line.substring(sp + 1)));
                } catch (NumberFormatException e) {
                    // not a sample
                }
            }
        } catch (IOException e) {
            // a server without metrics: the table says so
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return out;
    }

    /** The value of {@code label} in a series name, or null. */
    static String label(String series, String label) {
        int i = series.indexOf(label + "=\"");
        if (i < 0) {
            return null;
        }
        int from = i + label.length() + 2;
        return series.substring(from, series.indexOf('"', from));
    }

    /** The growth between two scrapes of the series named {@code name} whose label {@code label} is in {@code values}. */
    static double delta(Map<String, Double> before, Map<String, Double> after, String name, String label, List<String> values,
            String otherLabel, String otherValue) {
        double sum = 0;
        for (Map.Entry<String, Double> e : after.entrySet()) {
            String k = e.getKey();
            if (!k.startsWith(name + "{")) {
                continue;
            }
            if (label != null && !values.contains(label(k, label))) {
                continue;
            }
            if (otherLabel != null && !otherValue.equals(label(k, otherLabel))) {
                continue;
            }
            sum += e.getValue() - before.getOrDefault(k, 0.0);
        }
        return sum;
    }

    /** Per kind, the server's own time and how much of it was waiting (locks, guard, reading), from two metric scrapes. */
    void printServerSide(Map<String, Double> before, Map<String, Double> after) {
        if (after.keySet().stream().noneMatch(k -> k.startsWith("crashlab_wait_seconds_count{"))) {
            System.out.println("(the server publishes no crashlab_wait_seconds on /q/metrics: no server-side waits to show)");
            return;
        }
        List<String> whats = after.keySet().stream().filter(k -> k.startsWith("crashlab_wait_seconds_count{"))
                .map(k -> label(k, "what")).distinct().sorted().toList();
        System.out.printf(Locale.ROOT, "%nserver side, from /q/metrics over the timed run (ms per request; waits are time blocked, not working):%n");
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-50s %9s %9s %9s", "kind", "requests", "server ms", "waited ms"));
        whats.forEach(w -> head.append(String.format(Locale.ROOT, " %16s", w)));
        System.out.println(head);
        for (Kind k : kinds) {
            double n = delta(before, after, "http_server_requests_seconds_count", "uri", k.uris, null, null);
            double server = delta(before, after, "http_server_requests_seconds_sum", "uri", k.uris, null, null);
            double waited = delta(before, after, "crashlab_wait_seconds_sum", "route", k.routes, null, null);
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-50s %9.0f %9.1f %9.2f", k.name, n,
                    n == 0 ? Double.NaN : server * 1000 / n, n == 0 ? Double.NaN : waited * 1000 / n));
            for (String w : whats) {
                double x = delta(before, after, "crashlab_wait_seconds_sum", "route", k.routes, "what", w);
                row.append(String.format(Locale.ROOT, " %16.2f", n == 0 ? Double.NaN : x * 1000 / n));
            }
            System.out.println(row);
        }
        for (String w : whats) {
            double n = delta(before, after, "crashlab_wait_seconds_count", "route", List.of("background"), "what", w);
            if (n > 0) {
                double sum = delta(before, after, "crashlab_wait_seconds_sum", "route", List.of("background"), "what", w);
                System.out.printf(Locale.ROOT, "  background %-16s %6.0f waits, mean %8.1f ms, %s%n", w, n, sum * 1000 / n,
                        bucketP99(before, after, w));
            }
        }
        double acquires = delta(before, after, "agroal_acquire_count_total", null, null, null, null);
        double blocked = delta(before, after, "agroal_blocking_time_total_milliseconds", null, null, null, null);
        if (acquires > 0) {
            System.out.printf(Locale.ROOT, "  connection pool: %.0f acquisitions, %.0f ms blocked in all (%.2f ms each on average)%n",
                    acquires, blocked, blocked / acquires);
        }
    }

    /** "p99 <= X s" for background waits of {@code what}, from the histogram's bucket growth. */
    static String bucketP99(Map<String, Double> before, Map<String, Double> after, String what) {
        java.util.TreeMap<Double, Double> cumulative = new java.util.TreeMap<>();
        for (Map.Entry<String, Double> e : after.entrySet()) {
            String k = e.getKey();
            if (k.startsWith("crashlab_wait_seconds_bucket{") && "background".equals(label(k, "route")) && what.equals(label(k, "what"))) {
                String le = label(k, "le");
                cumulative.merge("+Inf".equals(le) ? Double.POSITIVE_INFINITY : Double.parseDouble(le),
                        e.getValue() - before.getOrDefault(k, 0.0), Double::sum);
            }
        }
        if (cumulative.isEmpty()) {
            return "";
        }
        double total = cumulative.lastEntry().getValue();
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
            if (e.getValue() >= 0.99 * total) {
                return "p99 <= " + (e.getKey().isInfinite() ? "+Inf" : e.getKey() + " s") + ", over 1 s: "
                        + String.format(Locale.ROOT, "%.0f", total - cumulative.getOrDefault(1.0, total));
            }
        }
        return "";
    }

    static double pct(List<Long> nanos, double p) {
        if (nanos.isEmpty()) {
            return Double.NaN;
        }
        long[] a = nanos.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        int i = (int) Math.ceil(p / 100.0 * a.length) - 1;
        return a[Math.max(0, Math.min(a.length - 1, i))] / 1e6;
    }

    /** Waits for every accepted bundle to be read, then checks it is stored, downloads as uploaded and is diagnosed. */
    int verify(Duration wait) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        int ready = 0;
        int identical = 0;
        int redactedDiffers = 0;
        int diagnosed = 0;
        List<String> problems = new ArrayList<>();
        long artifacts = 0;
        for (Map.Entry<Long, Sent> e : new java.util.TreeMap<>(accepted).entrySet()) {
            long id = e.getKey();
            JsonNode view = null;
            while (true) {
                HttpResponse<byte[]> r = http.send(req("/api/bundles/" + id).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
                if (r.statusCode() != 200) {
                    problems.add("bundle " + id + ": GET answered " + r.statusCode());
                    break;
                }
                view = JSON.readTree(r.body());
                if (!"PROCESSING".equals(view.path("status").asText()) || System.nanoTime() > deadline) {
                    break;
                }
                Thread.sleep(200);
            }
            if (view == null) {
                continue;
            }
            if (!"READY".equals(view.path("status").asText())) {
                problems.add("bundle " + id + " is " + view.path("status").asText() + " after the wait");
                continue;
            }
            ready++;
            Map<String, byte[]> sent = e.getValue().files();
            boolean redactions = view.path("redactions").size() > 0;
            boolean same = true;
            int seen = 0;
            for (JsonNode a : view.path("artifacts")) {
                String path = a.path("path").asText();
                byte[] want = sent.get(path);
                if (want == null) {
                    problems.add("bundle " + id + ": artifact " + path + " was not uploaded");
                    same = false;
                    continue;
                }
                seen++;
                artifacts++;
                HttpResponse<byte[]> r = http.send(req("/api/bundles/" + id + "/artifacts/" + a.path("id").asLong() + "/content").GET().build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                if (r.statusCode() != 200) {
                    problems.add("bundle " + id + ": download of " + path + " answered " + r.statusCode());
                    same = false;
                } else if (!Arrays.equals(r.body(), want)) {
                    if (redactions) {
                        redactedDiffers++; // secret redaction rewrote it before storing: expected, counted apart
                    } else {
                        problems.add("bundle " + id + ": " + path + " downloads " + r.body().length + " bytes unlike the " + want.length + " uploaded");
                        same = false;
                    }
                }
            }
            if (seen != sent.size()) {
                problems.add("bundle " + id + ": " + seen + " of " + sent.size() + " uploaded files are stored");
                same = false;
            }
            if (same) {
                identical++;
            }
            HttpResponse<byte[]> d = http.send(req("/api/bundles/" + id + "/diagnosis").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            if (d.statusCode() == 200 && JSON.readTree(d.body()).has("hypotheses")) {
                diagnosed++;
            } else {
                problems.add("bundle " + id + ": diagnosis answered " + d.statusCode());
            }
        }
        int n = accepted.size();
        System.out.printf(Locale.ROOT, "%nafterwards, every accepted bundle (%d):%n", n);
        System.out.printf(Locale.ROOT, "  stored and READY                         %d of %d%n", ready, n);
        System.out.printf(Locale.ROOT, "  every file downloads byte for byte       %d of %d (%d artifacts; %d rewritten by secret redaction, as designed)%n",
                identical, n, artifacts, redactedDiffers);
        System.out.printf(Locale.ROOT, "  diagnosed (GET /diagnosis has hypotheses) %d of %d%n", diagnosed, n);
        problems.stream().limit(20).forEach(p -> System.out.println("  PROBLEM: " + p));
        return problems.isEmpty() && ready == n && identical == n && diagnosed == n ? 0 : 1;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: LoadBench URL TOKEN SECONDS CLIENTS CORPUS_DIR");
            System.exit(2);
        }
        LoadBench b = new LoadBench(args[0], args[1], Path.of(args[4]));
        int seconds = Integer.parseInt(args[2]);
        int clients = Integer.parseInt(args[3]);
        // warm-up, untimed: a few bundles to read, and the server's JIT compiles the paths
        Random warm = new Random(1);
        for (int i = 0; i < 10; i++) {
            b.doUpload(warm, false);
        }
        long until = System.nanoTime() + Duration.ofSeconds(Math.max(1, seconds / 10)).toNanos();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < Math.min(clients, 8); c++) {
                long seed = 1000 + c;
                pool.submit(() -> b.client(seed, until));
            }
        }
        b.kinds.forEach(k -> {
            k.nanos.clear();
            k.ok.set(0);
            k.client.set(0);
            k.server.set(0);
            k.failed.set(0);
        });
        b.serverErrors.clear();
        b.clientErrors.clear();
        Map<String, Double> metricsBefore = b.scrape();
        long t0 = System.nanoTime();
        long end = t0 + Duration.ofSeconds(seconds).toNanos();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                long seed = 42 + c;
                pool.submit(() -> b.client(seed, end));
            }
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        Map<String, Double> metricsAfter = b.scrape();
        System.out.printf(Locale.ROOT, "%nload benchmark: %d clients for %.1f s against %s; %d cores here, Java %s%n",
                clients, elapsed, b.base, Runtime.getRuntime().availableProcessors(), Runtime.version());
        System.out.printf(Locale.ROOT, "%-50s %8s %8s %9s %9s %9s %6s %6s %5s %5s%n", "kind", "requests", "req/s", "p50 ms", "p99 ms",
                "p99.9 ms", ">1 s", "4xx", "5xx", "no-resp");
        long all = 0;
        long fivexx = 0;
        List<Long> every = new ArrayList<>();
        for (Kind k : b.kinds) {
            long n = k.ok.get() + k.client.get() + k.server.get() + k.failed.get();
            all += n;
            fivexx += k.server.get() + k.failed.get();
            every.addAll(k.nanos);
            long over1s;
            synchronized (k.nanos) {
                over1s = k.nanos.stream().filter(t -> t > 1_000_000_000L).count();
            }
            System.out.printf(Locale.ROOT, "%-50s %8d %8.1f %9.1f %9.1f %9.1f %6d %6d %5d %5d%n", k.name, n, n / elapsed, pct(k.nanos, 50),
                    pct(k.nanos, 99), pct(k.nanos, 99.9), over1s, k.client.get(), k.server.get(), k.failed.get());
        }
        System.out.printf(Locale.ROOT, "%-50s %8d %8.1f %9.1f %9.1f %9.1f %6d %6s %5d%n", "all", all, all / elapsed, pct(every, 50),
                pct(every, 99), pct(every, 99.9), every.stream().filter(t -> t > 1_000_000_000L).count(), "", fivexx);
        b.printServerSide(metricsBefore, metricsAfter);
        b.serverErrors.forEach(s -> System.out.println("  " + s));
        b.clientErrors.forEach(s -> System.out.println("  4xx: " + s));
        int rc = b.verify(Duration.ofMinutes(5));
        if (fivexx > 0) {
            System.out.println("FAILED: " + fivexx + " requests answered 5xx or not at all");
            rc = 1;
        }
        System.exit(rc);
    }
}
