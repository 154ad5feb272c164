package dev.crashlab.diagnose;

import dev.crashlab.fact.EnvironmentFact;
import dev.crashlab.fact.ExitStatus;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuFact;
import dev.crashlab.fact.ModelFact;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.WindowsFact;
import dev.crashlab.kb.FactKinds;
import dev.crashlab.kb.KbArticle;
import dev.crashlab.kb.Matcher;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Names the one artifact that would best tell the leading causes apart: for a weak answer its equals, else the top
 * two. An artifact family scores, for each pair of them, by how differently the two causes' matchers read the fact
 * kinds it states and the bundle lacks (a discriminating matcher counts fully, a consistent one half, context and
 * counter-evidence a quarter: they make a cause plausible or drop it, they do not say which sibling it is), and, for
 * each of them, by whether its article's first {@code confirm:} step (written to be the check that tells it from its
 * siblings) reads that artifact. A family the bundle has, or its platform cannot have, is never asked; where the
 * platform is unknown and the best family is one OS's system log, both OS's logs are named.
 */
public final class AskForArtifact implements Rule {

    /** Which fact kinds the compat checks read (a compat matcher needs them). */
    static final Map<String, List<String>> CHECK_KINDS = Map.of(
            "driver-vs-cuda", List.of("GpuDevice", "VersionFact"),
            "gpu-arch-vs-build", List.of("GpuDevice", "BuildInfo"),
            "mixed-precision-vs-gpu", List.of("GpuDevice", "TrainingSetup"),
            "torch-cpu-only-build", List.of("BuildInfo", "GpuDevice"));

    static final String NVIDIA_SMI = "`nvidia-smi -q` output";
    static final String KERNEL_LOG = "the kernel log (`dmesg -T` or `journalctl -k`)";
    static final String EVENT_LOGS = "the Application and System event logs (Event Viewer export or .evtx)";
    static final String ENV_LISTING = "an environment listing (`python -m torch.utils.collect_env`, or `pip list` and `nvcc -V`)";
    static final String MODEL = "the model configuration (`model.summary()` or `model.to_json()`)";
    static final String CONSOLE = "the complete console log, from start to exit status";
    /** Either OS's system log, where the bundle does not say which OS the job ran on. */
    static final String SYSTEM_LOG = "the system log: " + KERNEL_LOG + " on Linux, " + EVENT_LOGS + " on Windows";

    /**
     * What a confirm step reads, by the words that name each artifact (the commands and logs our articles write):
     * a step that names one is the article's own statement that this artifact decides.
     */
    static final Map<String, Pattern> CONFIRM_READS = Map.of(
            NVIDIA_SMI, Pattern.compile("nvidia-smi"),
            KERNEL_LOG, Pattern.compile("(?i)kernel log|dmesg|journalctl|\\bXid\\b"),
            EVENT_LOGS, Pattern.compile("(?i)event log|Event Viewer|Application Error|\\b(Display|nvlddmkm) (event )?\\d{2,4}\\b|WHEA|Kernel-Power"),
            ENV_LISTING, Pattern.compile("(?i)pip list|conda list|collect_env|nvcc -V|__version__|python -VV"),
            MODEL, Pattern.compile("model\\.(summary|to_json)"));

    /** The share a matcher's weight counts toward separating two causes, by what kind of evidence it is. */
    static final double SPECIFIC = 1.0;
    static final double CONSISTENT = 0.5;
    static final double CONTEXT_OR_AGAINST = 0.25;
    /** What an article's first confirm step naming the artifact adds for that article. */
    static final double CONFIRM_NAMES_IT = 0.5;

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
        // a text file none of whose lines gave facts of another family is the job's log, however little it said
        Set<String> otherFamilies = new HashSet<>();
        ctx.allInput.facts().stream().filter(f -> !artifactFor(f.kind()).equals(CONSOLE))
                .forEach(f -> f.sources().forEach(s -> otherFamilies.add(s.artifact())));
        if (ctx.allInput.lines().stream().anyMatch(l -> !otherFamilies.contains(l.artifact()))) {
            have.add(CONSOLE);
        }
        List<String> ids = leading(ctx);
        List<KbArticle> arts = ids.stream().map(id -> ctx.kb.article(id).orElseThrow()).toList();
        List<Map<String, Double>> needs = arts.stream().map(a -> needs(a, present)).toList();
        Map<String, Double> value = new HashMap<>();
        for (int i = 0; i < arts.size(); i++) {
            for (int j = i + 1; j < arts.size(); j++) {
                Set<String> families = new HashSet<>(needs.get(i).keySet());
                families.addAll(needs.get(j).keySet());
                for (String art : families) {
                    double a = needs.get(i).getOrDefault(art, 0.0);
                    double b = needs.get(j).getOrDefault(art, 0.0);
                    // an artifact that speaks to one of the two separates them; one both need equally still helps a little
                    value.merge(art, Math.abs(a - b) + 0.1 * (a + b), Double::sum);
                }
            }
            for (String art : confirmReads(arts.get(i))) {
                value.merge(art, CONFIRM_NAMES_IT, Double::sum);
            }
        }
        String os = osFamily(ctx);
        String best = null;
        double bestValue = 0;
        for (Map.Entry<String, Double> e : value.entrySet()) {
            String art = e.getKey();
            // a file the bundle's platform cannot have (a Linux kernel log on Windows, event logs on Linux) is not asked
            if (have.contains(art) || (os.equals("windows") && art.equals(KERNEL_LOG))
                    || ((os.equals("linux") || os.equals("macos") || os.equals("posix")) && art.equals(EVENT_LOGS))) {
                continue;
            }
            double v = e.getValue();
            if (v > bestValue + 1e-9 || (Math.abs(v - bestValue) < 1e-9 && best != null && art.compareTo(best) < 0)) {
                best = art;
                bestValue = v;
            }
        }
        if (best != null && os.isEmpty() && (best.equals(KERNEL_LOG) || best.equals(EVENT_LOGS))
                && !have.contains(KERNEL_LOG) && !have.contains(EVENT_LOGS)) {
            best = SYSTEM_LOG;
        }
        if (best != null) {
            ctx.ask = List.of(new Ask(best, "it states what tells " + String.join(" and ", ids) + " apart and this bundle lacks",
                    ids.size() > 2 ? ids.subList(0, 2) : ids));
        }
    }

    /** The causes to tell apart: a weak answer's equals, else the top two. */
    static List<String> leading(DiagnosisContext ctx) {
        VerdictPolicy.Outcome o = VerdictPolicy.decide(ctx.ranked, ctx.kb::counts);
        if (o.verdict() == Diagnosis.Verdict.WEAK && o.equals().size() >= 2) {
            return o.equals();
        }
        return List.of(ctx.ranked.get(0).id(), ctx.ranked.get(1).id());
    }

    /** The artifacts the article's first confirm step reads. */
    static List<String> confirmReads(KbArticle a) {
        if (a.confirm().isEmpty()) {
            return List.of();
        }
        String step = a.confirm().getFirst();
        return CONFIRM_READS.entrySet().stream().filter(e -> e.getValue().matcher(step).find()).map(Map.Entry::getKey).sorted().toList();
    }

    /**
     * The OS the job ran on, lower case: a platform fact's, else {@code windows} for an NTSTATUS exit and {@code posix}
     * for a signal; empty when nothing says.
     */
    static String osFamily(DiagnosisContext ctx) {
        String os = ctx.allInput.facts().stream().filter(f -> f instanceof Platform p && p.osFamily() != null)
                .map(f -> ((Platform) f).osFamily().toLowerCase(Locale.ROOT)).findFirst().orElse("");
        if (!os.isEmpty()) {
            return os;
        }
        for (Fact f : ctx.allInput.facts()) {
            if (f instanceof ExitStatus e && e.statusKind() == ExitStatus.Kind.NTSTATUS) {
                return "windows";
            }
            if (f instanceof ExitStatus e && e.statusKind() == ExitStatus.Kind.SIGNAL) {
                os = "posix";
            }
        }
        return os;
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
                double share = list == article.against() || Evidence.isContext(m) ? CONTEXT_OR_AGAINST
                        : m.specific() ? SPECIFIC : CONSISTENT;
                for (String k : kinds) {
                    if (!present.contains(k)) {
                        out.merge(artifactFor(k), m.weight() * share, Double::sum);
                    }
                }
            }
        }
        return out;
    }

    /** The artifact a user would upload to give us facts of this kind, by the kind's family. */
    public static String artifactFor(String kind) {
        Class<? extends Fact> c = FactKinds.get().kind(kind).orElse(null);
        if (c == null) {
            return "the complete console log";
        }
        if (kind.equals("XidEvent") || kind.equals("HostOomKill")) {
            return KERNEL_LOG;
        }
        if (GpuFact.class.isAssignableFrom(c)) {
            return NVIDIA_SMI;
        }
        if (WindowsFact.class.isAssignableFrom(c)) {
            return EVENT_LOGS;
        }
        if (EnvironmentFact.class.isAssignableFrom(c)) {
            return ENV_LISTING;
        }
        if (ModelFact.class.isAssignableFrom(c)) {
            return MODEL;
        }
        return CONSOLE;
    }
}
