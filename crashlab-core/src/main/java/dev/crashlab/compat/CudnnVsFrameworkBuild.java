package dev.crashlab.compat;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.kb.Versions;
import java.util.List;

/**
 * {@code cudnn-vs-framework-build}: the cuDNN present has another major than the build's, or an older
 * minor than the one it was compiled with (cuDNN loads only forward within a major).
 */
final class CudnnVsFrameworkBuild implements CompatCheck {

    static final String ID = "cudnn-vs-framework-build";

    @Override
    public String id() {
        return ID;
    }

    private record Expected(String cudnn, String why, List<Fact> facts) {}

    private static Expected expected(SoftwareStack s, CompatData data) {
        for (Observed w : s.cudnnWanted()) {
            return new Expected(w.value(), "the framework was compiled with cuDNN " + w.value() + " ("
                    + CudaVsFrameworkBuild.describe(w) + ")", List.of(w.fact()));
        }
        for (BuildInfo b : s.builds()) {
            if (!b.cpuOnly() && b.cudnnVersion() != null) {
                return new Expected(b.cudnnVersion(), (b.framework() == null ? "the framework" : b.framework()) + " was built for cuDNN "
                        + b.cudnnVersion(), List.of(b));
            }
        }
        Observed tf = s.framework("tensorflow");
        if (tf != null && !s.sourceBuild("tensorflow")) { // a source build is built for what its builder had, not the release's table
            CsvTable.Row row = CompatLookup.tensorflowBuild(data, tf.value(), s.buildPlatform());
            if (row != null && !row.get("cudnn").isBlank()) {
                return new Expected(row.get("cudnn"), "TF " + Versions.majorMinor(tf.value()) + " expects cuDNN " + row.get("cudnn"), List.of(tf.fact()));
            }
        }
        return null;
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        Expected exp = expected(s, data);
        if (exp == null) {
            return CompatOutcome.unknown(ID, "the bundle names no cuDNN the framework build needs");
        }
        if (s.cudnnPresent().isEmpty()) {
            return CompatOutcome.unknown(ID, exp.why() + "; the bundle does not say which cuDNN is installed");
        }
        int[] e = Versions.parse(exp.cudnn());
        CompatOutcome refused = refusedByFramework(s, exp);
        if (refused != null) {
            return refused;
        }
        for (Observed p : s.cudnnPresent()) {
            int[] f = Versions.parse(p.value());
            if (e == null || f == null) {
                continue;
            }
            boolean otherMajor = e[0] != f[0];
            boolean olderMinor = !otherMajor && e.length > 1 && f.length > 1 && f[1] < e[1];
            if (otherMajor || olderMinor) {
                return CompatOutcome.mismatch(ID, exp.why() + "; found cuDNN " + p.value() + " ("
                        + CudaVsFrameworkBuild.describe(p) + ")", CudaVsFrameworkBuild.concat(exp.facts(), p.fact()));
            }
        }
        Observed first = s.cudnnPresent().getFirst();
        return CompatOutcome.ok(ID, exp.why() + "; found cuDNN " + first.value(), CudaVsFrameworkBuild.concat(exp.facts(), first.fact()));
    }

    /**
     * A line where the framework names both the cuDNN it was compiled with and the one it loaded is its own refusal
     * (TensorFlow's {@code Loaded runtime CuDNN library: X but source was compiled with: Y}, PyTorch's {@code cuDNN version
     * mismatch/incompatibility}): it is printed only when the framework's rule rejected the pair, and that rule can be
     * stricter than the forward-within-a-major rule below (PyTorch up to 1.2 wanted major and minor equal). Differing
     * versions on such a line are a mismatch by the framework's own word.
     */
    private static CompatOutcome refusedByFramework(SoftwareStack s, Expected exp) {
        for (Observed w : s.cudnnWanted()) {
            if (!(w.fact() instanceof VersionFact c) || !"log: compiled with".equals(c.origin()) || c.sources().isEmpty()) {
                continue;
            }
            for (Observed p : s.cudnnPresent()) {
                if (p.fact() instanceof VersionFact r && "log: runtime".equals(r.origin()) && r.sources().equals(c.sources())
                        && !Versions.majorMinor(r.version()).equals(Versions.majorMinor(c.version()))) {
                    return CompatOutcome.mismatch(ID, exp.why() + "; the framework itself refused the cuDNN it loaded (" + r.version() + ")",
                            CudaVsFrameworkBuild.concat(List.of(c), r));
                }
            }
        }
        return null;
    }
}
