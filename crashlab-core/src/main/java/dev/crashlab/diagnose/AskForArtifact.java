package dev.crashlab.diagnose;

import dev.crashlab.fact.EnvironmentFact;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuFact;
import dev.crashlab.fact.ModelFact;
import dev.crashlab.fact.WindowsFact;
import dev.crashlab.kb.FactKinds;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.Matcher;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * For the top two hypotheses, names the one artifact that would best tell them apart: the artifact that
 * states the fact kinds their matchers need, the bundle lacks, and whose weight differs most between them.
 */
final class AskForArtifact implements Rule {

    /** Which fact kinds the compat checks read (a compat matcher needs them). */
    static final Map<String, List<String>> CHECK_KINDS = Map.of(
            "driver-vs-cuda", List.of("GpuDevice", "VersionFact"),
            "gpu-arch-vs-build", List.of("GpuDevice", "BuildInfo"),
            "mixed-precision-vs-gpu", List.of("GpuDevice", "TrainingSetup"),
            "torch-cpu-only-build", List.of("BuildInfo", "GpuDevice"));

    @Override
    public String name() {
        return "ask-for-artifact";
    }

    @Override
    public boolean applies(DiagnosisContext ctx) {
        return ctx.ranked.size() >= 2;
    }

    @Override
    public void apply(DiagnosisContext ctx) {
        Set<String> present = new HashSet<>();
        ctx.allInput.facts().forEach(f -> present.add(f.kind()));
        // a file of a family the bundle already has (even one that gave no facts of the kind asked for) is not asked again
        Set<String> have = new HashSet<>();
        ctx.allInput.facts().forEach(f -> have.add(artifactFor(f.kind())));
        KbArticle a = ctx.kb.article(ctx.ranked.get(0).id()).orElseThrow();
        KbArticle b = ctx.kb.article(ctx.ranked.get(1).id()).orElseThrow();
        Map<String, Double> diff = new HashMap<>();
        needs(a, present).forEach((art, w) -> diff.merge(art, w, Double::sum));
        needs(b, present).forEach((art, w) -> diff.merge(art, -w, Double::sum));
        Map<String, Double> total = new HashMap<>();
        needs(a, present).forEach((art, w) -> total.merge(art, w, Double::sum));
        needs(b, present).forEach((art, w) -> total.merge(art, w, Double::sum));
        String best = null;
        double bestValue = 0;
        String os = ctx.allInput.facts().stream().filter(f -> f instanceof dev.crashlab.fact.Platform p && p.osFamily() != null)
                .map(f -> ((dev.crashlab.fact.Platform) f).osFamily().toLowerCase(java.util.Locale.ROOT)).findFirst().orElse("");
        for (String art : total.keySet()) {
            // a file the bundle's platform cannot have (a Linux kernel log on Windows, event logs on Linux) is not asked
            if (have.contains(art) || (os.equals("windows") && art.startsWith("the kernel log"))
                    || ((os.equals("linux") || os.equals("macos")) && art.startsWith("the Application and System event logs"))) {
                continue;
            }
            // an artifact that speaks to one of the two separates them; one both need equally still helps a little
            double value = Math.abs(diff.getOrDefault(art, 0.0)) + 0.1 * total.get(art);
            if (value > bestValue + 1e-9 || (Math.abs(value - bestValue) < 1e-9 && best != null && art.compareTo(best) < 0)) {
                best = art;
                bestValue = value;
            }
        }
        if (best != null) {
            ctx.ask = List.of(new Ask(best, "it states what " + a.id() + " and " + b.id() + " depend on and this bundle lacks",
                    List.of(a.id(), b.id())));
        }
    }

    // artifact -> summed weight of the article's matchers that need a fact kind the bundle lacks
    private static Map<String, Double> needs(KbArticle article, Set<String> present) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (List<Matcher> list : List.of(article.matchers(), article.against())) {
            for (Matcher m : list) {
                List<String> kinds = switch (m.source()) {
                    case FACT -> List.of(m.factKind());
                    case COMPAT -> CHECK_KINDS.getOrDefault(m.compat(), List.of("VersionFact", "BuildInfo"));
                    case TEXT -> List.of();
                    case ALL -> m.all().stream().filter(p -> p.source() == Matcher.Source.FACT && !p.absent())
                            .map(Matcher::factKind).toList();
                };
                for (String k : kinds) {
                    if (!present.contains(k)) {
                        out.merge(artifactFor(k), m.weight(), Double::sum);
                    }
                }
            }
        }
        return out;
    }

    /** The artifact a user would upload to give us facts of this kind, by the kind's family. */
    static String artifactFor(String kind) {
        Class<? extends Fact> c = FactKinds.get().kind(kind).orElse(null);
        if (c == null) {
            return "the complete console log";
        }
        if (kind.equals("XidEvent") || kind.equals("HostOomKill")) {
            return "the kernel log (`dmesg -T` or `journalctl -k`)";
        }
        if (GpuFact.class.isAssignableFrom(c)) {
            return "`nvidia-smi -q` output";
        }
        if (WindowsFact.class.isAssignableFrom(c)) {
            return "the Application and System event logs (Event Viewer export or .evtx)";
        }
        if (EnvironmentFact.class.isAssignableFrom(c)) {
            return "an environment listing (`python -m torch.utils.collect_env`, or `pip list` and `nvcc -V`)";
        }
        if (ModelFact.class.isAssignableFrom(c)) {
            return "the model configuration (`model.summary()` or `model.to_json()`)";
        }
        return "the complete console log, from start to exit status";
    }
}
