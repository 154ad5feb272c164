package dev.crashlab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.diagnose.TextLine;
import dev.crashlab.fact.Facts;
import dev.crashlab.crashes.ConfirmedCrashes;
import dev.crashlab.crashes.CrashSignature;
import dev.crashlab.crashes.CrashIndex;
import dev.crashlab.search.Bm25Baseline;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Measures the diagnosis on labelled bundles: every sub-folder of DIR is a case whose {@code meta.json}
 * (never read as input) names the causes, primary first.
 */
@Command(name = "eval",
        description = {"Diagnose every case folder in DIR and compare with its meta.json labels (primary first).",
                       "Prints one line per case, then top1 A/N top3 B/N overall and for cases that are not very-hard.",
                       "A hit is the primary label ranked first (top1) or among the first three (top3);",
                       "an article that specializes the label (specializes: in its front matter) counts as the label."})
final class EvalCommand implements Callable<Integer> {

    @Parameters(paramLabel = "DIR", description = "a folder of case folders, each with a meta.json")
    Path dir;

    @Option(names = "--baseline", paramLabel = "NAME", description = "also rank with a baseline and print it beside: bm25")
    String baseline;

    @Option(names = "--history", description = {"also diagnose each case with every other case as a confirmed past crash",
            "(its primary label as the confirmed cause; leave-one-out) and print that beside"})
    boolean history;

    @Mixin
    KnowledgeOptions knowledge = new KnowledgeOptions();

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** Hits counted for one ranker. */
    private static final class Tally {
        int n;
        int top1;
        int top3;
        int hardN;
        int hardTop1;
        int hardTop3;

        void add(List<String> ranked, String primary, boolean veryHard) {
            boolean t1 = !ranked.isEmpty() && ranked.getFirst().equals(primary);
            boolean t3 = ranked.subList(0, Math.min(3, ranked.size())).contains(primary);
            n++;
            top1 += t1 ? 1 : 0;
            top3 += t3 ? 1 : 0;
            if (!veryHard) {
                hardN++;
                hardTop1 += t1 ? 1 : 0;
                hardTop3 += t3 ? 1 : 0;
            }
        }

        String summary() {
            return String.format(Locale.ROOT, "top1 %d/%d top3 %d/%d   without very-hard: top1 %d/%d (%.0f%%) top3 %d/%d (%.0f%%)",
                    top1, n, top3, n, hardTop1, hardN, pct(hardTop1, hardN), hardTop3, hardN, pct(hardTop3, hardN));
        }

        private static double pct(int a, int b) {
            return b == 0 ? 0 : 100.0 * a / b;
        }
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(dir)) {
            err.println("crashlab eval: not a folder: " + dir);
            return 2;
        }
        if (baseline != null && !baseline.equals("bm25")) {
            err.println("crashlab eval: unknown baseline '" + baseline + "' (known: bm25)");
            return 2;
        }
        KnowledgeSource source = knowledge.load();
        if (!source.problems().isEmpty()) {
            source.problems().forEach(err::println);
            err.println("crashlab eval: the knowledge base has problems (see above)");
            return 1;
        }
        DiagnosisEngine engine = KnowledgeOptions.engine(source);
        Bm25Baseline bm25 = baseline == null ? null : Bm25Baseline.build(source.kb());
        List<Path> cases;
        try (Stream<Path> s = Files.list(dir)) {
            cases = s.filter(p -> Files.isRegularFile(p.resolve("meta.json"))).sorted().toList();
        }
        Tally ours = new Tally();
        Tally base = new Tally();
        Tally withHistory = new Tally();
        History past = history ? History.of(cases, source) : null;
        for (Path c : cases) {
            JsonNode meta = Facts.json().readTree(c.resolve("meta.json").toFile());
            List<String> labels = new ArrayList<>();
            meta.path("labels").forEach(l -> labels.add(l.asText()));
            if (labels.isEmpty()) {
                err.println("crashlab eval: " + c.getFileName() + ": meta.json has no labels; skipped");
                continue;
            }
            String difficulty = meta.path("difficulty").asText("");
            boolean veryHard = difficulty.equals("very-hard");
            DiagnosisInput input;
            try {
                input = OfflineBundle.read(List.of(c), p -> p.equals("meta.json"));
            } catch (BundleRejectedException e) {
                err.println("crashlab eval: " + c.getFileName() + ": refused: " + e.getMessage());
                continue;
            }
            Diagnosis d = engine.diagnose(input);
            List<String> ranked = asLabels(d.hypotheses().stream().map(Hypothesis::id).toList(), labels.getFirst(), source);
            ours.add(ranked, labels.getFirst(), veryHard);
            String line = String.format(Locale.ROOT, "%-10s %-9s %-32s %s %s", c.getFileName(), difficulty, labels.getFirst(),
                    mark(ranked, labels.getFirst()), top3(d));
            if (past != null) {
                List<dev.crashlab.fact.Fact> facts = new ArrayList<>(input.facts());
                facts.addAll(past.confirmedLike(c, input));
                Diagnosis dh = engine.diagnose(new DiagnosisInput(facts, input.lines()));
                List<String> h = asLabels(dh.hypotheses().stream().map(Hypothesis::id).toList(), labels.getFirst(), source);
                withHistory.add(h, labels.getFirst(), veryHard);
                line += "   | history " + mark(h, labels.getFirst()) + " " + top3(dh);
            }
            if (bm25 != null) {
                String text = input.lines().stream().map(TextLine::text).collect(Collectors.joining("\n"));
                List<String> b = asLabels(bm25.rank(text), labels.getFirst(), source);
                base.add(b, labels.getFirst(), veryHard);
                line += "   | bm25 " + mark(b, labels.getFirst()) + " " + String.join(",", b.subList(0, Math.min(3, b.size())));
            }
            out.println(line);
        }
        out.println("ours: " + ours.summary());
        if (past != null) {
            out.println("with confirmed history (leave-one-out): " + withHistory.summary());
        }
        if (bm25 != null) {
            out.println("bm25: " + base.summary());
        }
        out.flush();
        return 0;
    }

    /** The ranked ids with every article that specializes the label written as the label (a hit for it). */
    static List<String> asLabels(List<String> ranked, String label, KnowledgeSource source) {
        return ranked.stream().map(id -> source.kb().article(id).filter(a -> a.names(label)).map(a -> label).orElse(id)).toList();
    }

    private static String mark(List<String> ranked, String primary) {
        int i = ranked.indexOf(primary);
        return i == 0 ? "top1" : i > 0 && i < 3 ? "top3" : "miss";
    }

    private static String top3(Diagnosis d) {
        return d.hypotheses().stream().limit(3)
                .map(h -> String.format(Locale.ROOT, "%s(%.2f)", h.id(), h.score())).collect(Collectors.joining(" "));
    }

    /** Every case as a confirmed past crash: its facts-only signature plus its primary label as the cause. */
    private record History(CrashIndex index, java.util.Map<Path, Long> ids, java.util.Map<Long, String> names,
                           java.util.Map<Long, String> labels) {

        static History of(List<Path> cases, KnowledgeSource source) throws IOException {
            CrashIndex index = new CrashIndex();
            java.util.Map<Path, Long> ids = new java.util.HashMap<>();
            java.util.Map<Long, String> names = new java.util.HashMap<>();
            java.util.Map<Long, String> labels = new java.util.HashMap<>();
            long id = 0;
            for (Path c : cases) {
                JsonNode meta = Facts.json().readTree(c.resolve("meta.json").toFile());
                String label = meta.path("labels").path(0).asText("");
                if (label.isEmpty()) {
                    continue;
                }
                DiagnosisInput in;
                try {
                    in = OfflineBundle.read(List.of(c), p -> p.equals("meta.json"));
                } catch (BundleRejectedException e) {
                    continue;
                }
                id++;
                String title = source.kb().article(label).map(a -> a.title()).orElse(label);
                index.put(new CrashIndex.Entry(id, CrashSignature.of(c.getFileName().toString(), List.of(), in.facts(), null, label, title)));
                ids.put(c, id);
                names.put(id, c.getFileName().toString());
                labels.put(id, label);
            }
            return new History(index, ids, names, labels);
        }

        /** The other cases like this one, as confirmed crashes (compared on what this case itself says). */
        List<dev.crashlab.fact.ConfirmedCrash> confirmedLike(Path c, DiagnosisInput in) {
            long self = ids.getOrDefault(c, -1L);
            CrashSignature mine = CrashSignature.of(c.getFileName().toString(), List.of(), in.facts(), null);
            return ConfirmedCrashes.of(index.similarTo(mine, self, 50), names::get, labels::get);
        }
    }
}
