package dev.crashlab.compat;

import dev.crashlab.fact.Fact;
import dev.crashlab.kb.Versions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code multiple-cuda-versions}: more than one CUDA (or cuDNN) release is visible at once, e.g. a
 * toolkit on PATH and another one's libraries loaded.
 */
final class MultipleCudaVersions implements CompatCheck {

    static final String ID = "multiple-cuda-versions";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        Map<String, Observed> cuda = distinct(s.cudaPresent());
        Map<String, Observed> cudnn = distinct(s.cudnnPresent());
        // a PyTorch wheel ships its own CUDA runtime and cuDNN: a copy of another version loaded from the library
        // path is a second one visible (and the one that wins the search order)
        if (loadedFromPath(s.cudaPresent()) || loadedFromPath(s.cudnnPresent())) {
            for (dev.crashlab.fact.BuildInfo b : s.builds()) {
                if (!b.cpuOnly() && b.framework() != null && b.framework().toLowerCase(java.util.Locale.ROOT).contains("torch")) {
                    if (b.cudaVersion() != null && loadedFromPath(s.cudaPresent())) {
                        cuda.putIfAbsent(Versions.majorMinor(b.cudaVersion()), new Observed(b.cudaVersion(), b));
                    }
                }
            }
            boolean torchWheel = s.builds().stream().anyMatch(b -> !b.cpuOnly() && b.framework() != null
                    && b.framework().toLowerCase(java.util.Locale.ROOT).contains("torch"));
            if (torchWheel && loadedFromPath(s.cudnnPresent())) {
                for (Observed w : s.cudnnWanted()) {
                    if (w.fact() instanceof dev.crashlab.fact.VersionFact v && v.origin() != null && v.origin().contains("compiled")
                            && Versions.parse(w.value()) != null && Versions.parse(w.value()).length >= 2) {
                        cudnn.putIfAbsent(Versions.majorMinor(w.value()), w);
                    }
                }
            }
        }
        dropStatedBuildVersion(s, cudnn);
        if (cuda.size() > 1 || cudnn.size() > 1) {
            Map<String, Observed> many = cuda.size() > 1 ? cuda : cudnn;
            List<Fact> facts = new ArrayList<>();
            many.values().forEach(o -> facts.add(o.fact()));
            return CompatOutcome.mismatch(ID, (cuda.size() > 1 ? "CUDA" : "cuDNN") + " versions " + String.join(", ", many.keySet())
                    + " are all visible", facts);
        }
        if (cuda.isEmpty()) {
            return CompatOutcome.unknown(ID, "the bundle names no CUDA present");
        }
        return CompatOutcome.ok(ID, "one CUDA version visible (" + cuda.keySet().iterator().next() + ")",
                List.of(cuda.values().iterator().next().fact()));
    }

    /**
     * When the framework's log names the cuDNN it loaded at run time, a listing's statement of the version it was
     * compiled with is the reporter's expectation, not a second copy the machine showed: the two differing is the
     * version mismatch itself ({@code cudnn-vs-framework-build}). A second copy needs the machine to show it (a library
     * path, a loaded or listed file).
     */
    private static void dropStatedBuildVersion(SoftwareStack s, Map<String, Observed> cudnn) {
        boolean loggedRuntime = s.cudnnPresent().stream().anyMatch(o -> origin(o).equals("log: runtime"));
        if (!loggedRuntime) {
            return;
        }
        for (Observed w : s.cudnnWanted()) {
            if (!origin(w).equals("log: compiled with") || Versions.parse(w.value()) == null) {
                continue;
            }
            String compiled = Versions.majorMinor(w.value());
            Observed seen = cudnn.get(compiled);
            boolean shownElsewhere = s.cudnnPresent().stream().anyMatch(o -> !isStatement(o) && Versions.parse(o.value()) != null
                    && Versions.majorMinor(o.value()).equals(compiled));
            if (seen != null && isStatement(seen) && !shownElsewhere) {
                cudnn.remove(compiled);
            }
        }
    }

    private static String origin(Observed o) {
        return o.fact() instanceof dev.crashlab.fact.VersionFact v && v.origin() != null ? v.origin().toLowerCase(java.util.Locale.ROOT) : "";
    }

    /** A plain {@code key: value} statement of an environment listing (what the reporter says is installed). */
    private static boolean isStatement(Observed o) {
        return origin(o).equals("env");
    }

    private static boolean loadedFromPath(List<Observed> present) {
        return present.stream().anyMatch(o -> o.fact() instanceof dev.crashlab.fact.VersionFact v && v.origin() != null
                && v.origin().toLowerCase(java.util.Locale.ROOT).matches(".*(library path|loaded|opened|runtime).*"));
    }

    private static Map<String, Observed> distinct(List<Observed> present) {
        Map<String, Observed> out = new LinkedHashMap<>();
        for (Observed o : present) {
            // a bare major ("8", "8.x") cannot tell two releases apart
            if (Versions.parse(o.value()) != null && Versions.parse(o.value()).length >= 2) {
                out.putIfAbsent(Versions.majorMinor(o.value()), o);
            }
        }
        return out;
    }
}
