package dev.crashlab.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.unpack.BundleRejectedException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import dev.crashlab.kb.KnowledgeBase;
import dev.crashlab.search.Bm25Baseline;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Measures the diagnosis on labelled bundles: every sub-folder of each DIR is a case whose {@code meta.json}
 * (never read as input) names the causes, primary first.
 */
@Command(name = "eval",
        description = {"Diagnose every case folder in each DIR and compare with its meta.json labels (primary first).",
                       "Prints one line per case, then top1 A/N top3 B/N overall and for cases that are not very-hard,",
                       "the same for the cases from --new-from on, and a reliability table: for each verdict",
                       "(diagnosed, weak, no-evidence) how many answers and how often the first cause is right.",
                       "A hit is the primary label ranked first (top1) or among the first three (top3);",
                       "an article that specializes the label (specializes: in its front matter) counts as the label,",
                       "and the label's general cause counts for a label that is a special case."})
final class EvalCommand implements Callable<Integer> {

    private static final Pattern CASE_NUMBER = Pattern.compile("c(\\d+)");

    @Parameters(paramLabel = "DIR", arity = "1..*", description = "folders of case folders, each case with a meta.json")
    List<Path> dirs;

    @Option(names = "--baseline", paramLabel = "NAME", description = "also rank with a baseline and print it beside: bm25")
    String baseline;

    @Option(names = "--history", description = {"also diagnose each case with every other case as a confirmed past crash",
            "(its primary label as the confirmed cause; leave-one-out) and print that beside"})
    boolean history;

    @Option(names = "--new-from", paramLabel = "CASE", defaultValue = "c151",
            description = {"cases numbered from this one on (cNNN) are also scored on their own: the ones collected",
                           "after the rules were written (default: ${DEFAULT-VALUE})"})
    String newFrom;

    @Option(names = "--json", description = "print the cases, the splits and the reliability table as JSON")
    boolean json;

    @Option(names = "--perturb", paramLabel = "KIND", split = ",", arity = "0..*", fallbackValue = "",
            description = {"also diagnose every case rewritten as another user would upload the same crash (other paths,",
                           "patch versions, same-architecture GPU, numbers, a log prefix, file names; or the log's last",
                           "line cut, no env file; or pasted: markdown, quoted, wrapped, jupyter, utf16, utf16-bare, localized, chained,",
                           "ranks, shutdown-tail) and print, per rewrite, how many right first answers survive",
                           "(not very-hard cases). KIND: one or more of the rewrites, comma-separated; none: all of them"})
    List<String> perturb;

    @Mixin
    KnowledgeOptions knowledge = new KnowledgeOptions();

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** Hits of one set of answers: how many, how many right first, how many right among the first three. */
    static final class Score {
        int n;
        int top1;
        int top3;

        void add(String mark) {
            n++;
            top1 += mark.equals("top1") ? 1 : 0;
            top3 += mark.equals("miss") ? 0 : 1;
        }

        String text() {
            return String.format(Locale.ROOT, "top1 %d/%d (%.0f%%) top3 %d/%d (%.0f%%)", top1, n, pct(top1, n), top3, n, pct(top3, n));
        }

        ObjectNode json() {
            ObjectNode o = Facts.json().createObjectNode();
            o.put("n", n).put("top1", top1).put("top3", top3);
            return o;
        }
    }

    /** One rewrite's effect: cases it applied to, right first before and after, right first both times, top-3 after. */
    static final class Survival {
        int n;
        int before;
        int after;
        int survived;
        int top3;

        void add(String plain, String perturbed) {
            n++;
            before += plain.equals("top1") ? 1 : 0;
            after += perturbed.equals("top1") ? 1 : 0;
            survived += plain.equals("top1") && perturbed.equals("top1") ? 1 : 0;
            top3 += perturbed.equals("miss") ? 0 : 1;
        }

        ObjectNode json() {
            ObjectNode o = Facts.json().createObjectNode();
            o.put("n", n).put("top1Before", before).put("top1After", after).put("survived", survived).put("top3After", top3);
            return o;
        }
    }

    /** Hits counted for one ranker: all cases, those not very-hard, and the same two for the new cases. */
    private static final class Tally {
        final Score all = new Score();
        final Score notVeryHard = new Score();
        final Score fresh = new Score();
        final Score freshNotVeryHard = new Score();

        void add(String mark, boolean veryHard, boolean isNew) {
            all.add(mark);
            if (!veryHard) {
                notVeryHard.add(mark);
            }
            if (isNew) {
                fresh.add(mark);
                if (!veryHard) {
                    freshNotVeryHard.add(mark);
                }
            }
        }

        String summary(Score whole, Score easier) {
            return String.format(Locale.ROOT, "top1 %d/%d top3 %d/%d   without very-hard: %s",
                    whole.top1, whole.n, whole.top3, whole.n, easier.text());
        }

        ObjectNode json() {
            ObjectNode o = Facts.json().createObjectNode();
            o.set("all", all.json());
            o.set("notVeryHard", notVeryHard.json());
            o.set("new", fresh.json());
            o.set("newNotVeryHard", freshNotVeryHard.json());
            return o;
        }
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        for (Path dir : dirs) {
            if (!Files.isDirectory(dir)) {
                err.println("crashlab eval: not a folder: " + dir);
                return 2;
            }
        }
        if (baseline != null && !baseline.equals("bm25")) {
            err.println("crashlab eval: unknown baseline '" + baseline + "' (known: bm25)");
            return 2;
        }
        java.util.regex.Matcher from = CASE_NUMBER.matcher(newFrom);
        if (!from.matches()) {
            err.println("crashlab eval: --new-from takes a case name cNNN (c151), got '" + newFrom + "'");
            return 2;
        }
        int firstNew = Integer.parseInt(from.group(1));
        KnowledgeSource source = knowledge.load();
        if (!source.problems().isEmpty()) {
            source.problems().forEach(err::println);
            err.println("crashlab eval: the knowledge base has problems (see above)");
            return 1;
        }
        DiagnosisEngine engine = KnowledgeOptions.engine(source);
        Bm25Baseline bm25 = baseline == null ? null : Bm25Baseline.build(source.kb());
        List<Path> cases = new ArrayList<>();
        for (Path dir : dirs) {
            try (Stream<Path> s = Files.list(dir)) {
                cases.addAll(s.filter(p -> Files.isRegularFile(p.resolve("meta.json"))).sorted().toList());
            }
        }
        List<Perturbation> rewrites = new ArrayList<>();
        if (perturb != null) {
            try {
                for (String k : perturb) {
                    if (!k.isBlank()) {
                        rewrites.add(Perturbation.parse(k));
                    }
                }
            } catch (IllegalArgumentException e) {
                err.println("crashlab eval: --perturb: " + e.getMessage());
                return 2;
            }
            if (rewrites.isEmpty()) {
                rewrites.addAll(List.of(Perturbation.values()));
            }
        }
        Map<Perturbation, Survival> survival = new EnumMap<>(Perturbation.class);
        rewrites.forEach(p -> survival.put(p, new Survival()));
        Tally ours = new Tally();
        Tally base = new Tally();
        Tally withHistory = new Tally();
        Map<Diagnosis.Verdict, Score> reliability = new EnumMap<>(Diagnosis.Verdict.class);
        for (Diagnosis.Verdict v : Diagnosis.Verdict.values()) {
            reliability.put(v, new Score());
        }
        ArrayNode caseRows = Facts.json().createArrayNode();
        History past = history ? History.of(cases, source) : null;
        for (Path c : cases) {
            JsonNode meta = Facts.json().readTree(c.resolve("meta.json").toFile());
            List<String> labels = new ArrayList<>();
            meta.path("labels").forEach(l -> labels.add(l.asText()));
            if (labels.isEmpty()) {
                err.println("crashlab eval: " + c.getFileName() + ": meta.json has no labels; skipped");
                continue;
            }
            String label = labels.getFirst();
            String difficulty = meta.path("difficulty").asText("");
            boolean veryHard = difficulty.equals("very-hard");
            java.util.regex.Matcher number = CASE_NUMBER.matcher(c.getFileName().toString());
            boolean isNew = number.matches() && Integer.parseInt(number.group(1)) >= firstNew;
            DiagnosisInput input;
            try {
                input = OfflineBundle.read(List.of(c), p -> p.equals("meta.json"));
            } catch (BundleRejectedException e) {
                err.println("crashlab eval: " + c.getFileName() + ": refused: " + e.getMessage());
                continue;
            }
            Diagnosis d = engine.diagnose(input);
            List<String> ranked = asLabels(d.hypotheses().stream().map(Hypothesis::id).toList(), label, source);
            String mark = mark(ranked, label);
            ours.add(mark, veryHard, isNew);
            reliability.get(d.verdict()).add(mark);
            String line = String.format(Locale.ROOT, "%-10s %-9s %-32s %-11s %s %s", c.getFileName(), difficulty, label,
                    d.verdict().written(), mark, top3(d));
            ObjectNode row = caseRows.addObject();
            row.put("case", c.getFileName().toString()).put("folder", c.getParent().toString()).put("difficulty", difficulty)
                    .put("label", label).put("new", isNew).put("verdict", d.verdict().written()).put("mark", mark);
            ArrayNode top = row.putArray("top");
            d.hypotheses().stream().limit(3).forEach(h -> top.addObject().put("id", h.id()).put("score", round(h.score())));
            if (past != null) {
                List<dev.crashlab.fact.Fact> facts = new ArrayList<>(input.facts());
                facts.addAll(past.confirmedLike(c, input));
                Diagnosis dh = engine.diagnose(new DiagnosisInput(facts, input.lines()));
                String h = mark(asLabels(dh.hypotheses().stream().map(Hypothesis::id).toList(), label, source), label);
                withHistory.add(h, veryHard, isNew);
                line += "   | history " + h + " " + top3(dh);
                row.put("history", h);
            }
            if (bm25 != null) {
                String text = input.lines().stream().map(TextLine::text).collect(Collectors.joining("\n"));
                List<String> b = asLabels(bm25.rank(text), label, source);
                String bm = mark(b, label);
                base.add(bm, veryHard, isNew);
                line += "   | bm25 " + bm + " " + String.join(",", b.subList(0, Math.min(3, b.size())));
                row.put("bm25", bm);
            }
            if (!rewrites.isEmpty() && !veryHard) {
                Perturbation.Case original = PerturbedCase.of(c);
                for (Perturbation p : rewrites) {
                    Perturbation.Case changed = p.apply(original);
                    if (changed == null) {
                        continue;
                    }
                    Diagnosis dp;
                    try {
                        dp = engine.diagnose(PerturbedCase.read(changed));
                    } catch (BundleRejectedException e) {
                        err.println("crashlab eval: " + c.getFileName() + " (" + p.written() + "): refused: " + e.getMessage());
                        continue;
                    }
                    String pm = mark(asLabels(dp.hypotheses().stream().map(Hypothesis::id).toList(), label, source), label);
                    survival.get(p).add(mark, pm);
                    if (!pm.equals(mark)) {
                        line += "   | " + p.written() + " " + pm + " " + top3(dp);
                        row.put(p.written(), pm);
                    }
                }
            }
            if (!json) {
                out.println(line);
            }
        }
        if (json) {
            ObjectNode root = Facts.json().createObjectNode();
            root.put("newFrom", newFrom);
            root.set("cases", caseRows);
            root.set("ours", ours.json());
            ObjectNode rel = root.putObject("reliability");
            reliability.forEach((v, s) -> rel.set(v.written(), s.json()));
            if (past != null) {
                root.set("history", withHistory.json());
            }
            if (bm25 != null) {
                root.set("bm25", base.json());
            }
            if (!survival.isEmpty()) {
                ObjectNode pj = root.putObject("perturbed");
                survival.forEach((p, s) -> pj.set(p.written(), s.json()));
            }
            out.println(Facts.json().writerWithDefaultPrettyPrinter().writeValueAsString(root));
            out.flush();
            return 0;
        }
        out.println("ours: " + ours.summary(ours.all, ours.notVeryHard));
        out.println("ours, " + newFrom + " on: " + ours.summary(ours.fresh, ours.freshNotVeryHard));
        if (past != null) {
            out.println("with confirmed history (leave-one-out): " + withHistory.summary(withHistory.all, withHistory.notVeryHard));
        }
        if (bm25 != null) {
            out.println("bm25: " + base.summary(base.all, base.notVeryHard));
        }
        if (!survival.isEmpty()) {
            out.println("perturbed (not very-hard cases the rewrite applies to): rewrite, cases, right first before -> after, survived, top3 after");
            survival.forEach((p, s) -> out.println(String.format(Locale.ROOT, "  %-15s %4d   top1 %4d -> %4d (%3.0f%%)   survived %4d/%d (%3.0f%%)   top3 %4d (%3.0f%%)   %s",
                    p.written(), s.n, s.before, s.after, pct(s.after, s.n), s.survived, s.before, pct(s.survived, s.before),
                    s.top3, pct(s.top3, s.n), p.description)));
        }
        out.println("reliability (all " + ours.all.n + " cases): verdict, answers, first cause right, right among the first three");
        reliability.forEach((v, s) -> out.println(String.format(Locale.ROOT, "  %-12s %4d   top1 %4d (%3.0f%%)   top3 %4d (%3.0f%%)",
                v.written(), s.n, s.top1, pct(s.top1, s.n), s.top3, pct(s.top3, s.n))));
        out.flush();
        return 0;
    }

    private static double pct(int a, int b) {
        return b == 0 ? 0 : 100.0 * a / b;
    }

    private static double round(double x) {
        return Math.round(x * 1000) / 1000.0;
    }

    /** The ranked ids with every id that counts for the label ({@link KnowledgeBase#counts}) written as the label. */
    static List<String> asLabels(List<String> ranked, String label, KnowledgeSource source) {
        return ranked.stream().map(id -> source.kb().counts(id, label) ? label : id).toList();
    }

    /** {@code top1}, {@code top3} or {@code miss}: where the label first appears in the ranked labels. */
    static String mark(List<String> ranked, String primary) {
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
