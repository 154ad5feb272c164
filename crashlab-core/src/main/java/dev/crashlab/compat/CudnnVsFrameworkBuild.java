package dev.crashlab.compat;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.Fact;
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
}
