package dev.crashlab.compat;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.LibraryLoadFailure;
import dev.crashlab.kb.Versions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code cuda-vs-framework-build}: the CUDA present differs from what the framework was built for (its
 * build info, TF's tested configuration, or the versioned library a failed load asked for).
 *
 * <p>NOTE: from CUDA 11 on, libraries are versioned by major ({@code cudart64_110.dll} serves all of 11.x),
 * so within a major >= 11 a different minor is not a mismatch; before 11 the minor must match too.
 *
 * <p>NOTE: cuFFT, cuRAND and cuSOLVER are named by their own major from CUDA 10.1 on ({@code libcurand.so.10} is in
 * every toolkit from 10.1 to 12.x): a failed load of one asks for any toolkit of the range
 * {@code cuda-library-majors.csv} gives, not for "CUDA 10".
 */
final class CudaVsFrameworkBuild implements CompatCheck {

    static final String ID = "cuda-vs-framework-build";

    @Override
    public String id() {
        return ID;
    }

    /**
     * The CUDA version the framework needs, with the sentence that says why and the facts behind it; {@code max} is
     * set when a library name stands for a range of toolkits ({@code cuda} .. {@code max}).
     */
    record Expected(String cuda, String why, List<Fact> facts, String max) {
        Expected(String cuda, String why, List<Fact> facts) {
            this(cuda, why, facts, null);
        }

        boolean admits(String version) {
            return max == null ? sameCuda(version, cuda) : inRange(version, new String[] {cuda, max});
        }
    }

    private static final Pattern MATH_LIBRARY = Pattern.compile(
            "(?i)^(?:lib)?(cufft|curand|cusolver)(?:64_(\\d{1,2})(?:_\\d+)?\\.dll|\\.so\\.(\\d+))$");

    /**
     * The toolkits ({@code [min, max]}) whose copy of a math library has the major a failed load asked for; null where
     * the name carries the toolkit's own version (CUDA 10.0 and before, the runtime, cuBLAS) or the table does not know it.
     */
    static String[] libraryRange(Observed w, CompatData data) {
        if (!(w.fact() instanceof LibraryLoadFailure l) || l.library() == null) {
            return null;
        }
        Matcher m = MATH_LIBRARY.matcher(l.library().replaceAll(".*[/\\\\]", ""));
        if (!m.matches()) {
            return null;
        }
        String major = m.group(2) != null ? m.group(2) : m.group(3);
        for (CsvTable.Row r : data.rows(CompatData.CUDA_LIBRARY_MAJORS)) {
            if (r.get("library").equalsIgnoreCase(m.group(1)) && r.get("major").equals(major)) {
                return new String[] {r.get("cuda_min"), r.get("cuda_max")};
            }
        }
        return null;
    }

    /** Whether a CUDA version lies in {@code [min, max]}, compared as far as the version goes ({@code 11} is in 10.1..11.8). */
    static boolean inRange(String version, String[] range) {
        int[] v = Versions.parse(version);
        int[] lo = Versions.parse(range[0]);
        int[] hi = Versions.parse(range[1]);
        if (v == null || lo == null || hi == null) {
            return true;
        }
        if (v.length == 1) {
            return v[0] >= lo[0] && v[0] <= hi[0];
        }
        String mm = Versions.majorMinor(version);
        return Versions.compare(mm, range[0]) >= 0 && Versions.compare(mm, range[1]) <= 0;
    }

    static Expected expected(SoftwareStack s, CompatData data) {
        for (BuildInfo b : s.builds()) {
            if (!b.cpuOnly() && b.cudaVersion() != null) {
                String fw = b.framework() == null ? "the framework" : CompatLookup.display(b.framework().toLowerCase(java.util.Locale.ROOT))
                        + (b.frameworkVersion() == null ? "" : " " + b.frameworkVersion());
                return new Expected(b.cudaVersion(), fw + " was built for CUDA " + b.cudaVersion(), List.of(b));
            }
        }
        Observed tf = s.framework("tensorflow");
        if (tf != null && !s.sourceBuild("tensorflow")) { // a source build is built for what its builder had, not the release's table
            CsvTable.Row row = CompatLookup.tensorflowBuild(data, tf.value(), s.buildPlatform());
            if (row != null && !row.get("cuda").isBlank()) {
                return new Expected(row.get("cuda"), "TF " + Versions.majorMinor(tf.value()) + " expects CUDA " + row.get("cuda"), List.of(tf.fact()));
            }
        }
        Expected ranged = null;
        for (Observed w : s.cudaWanted()) {
            String[] range = libraryRange(w, data);
            if (range == null) {
                return new Expected(w.value(), "the framework asked for CUDA " + w.value() + " (" + describe(w) + ")", List.of(w.fact()));
            }
            if (ranged == null) {
                ranged = new Expected(range[0], "the framework asked for a CUDA " + range[0] + " to " + range[1] + " library ("
                        + describe(w) + ")", List.of(w.fact()), range[1]);
            }
        }
        return ranged;
    }

    static boolean sameCuda(String a, String b) {
        int[] x = Versions.parse(a);
        int[] y = Versions.parse(b);
        if (x == null || y == null) {
            return true;
        }
        if (x[0] != y[0]) {
            return false;
        }
        if (x[0] >= 11 || x.length < 2 || y.length < 2) {
            return true;
        }
        return x[1] == y[1];
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        Expected exp = expected(s, data);
        List<Observed> present = s.cudaPresent();
        if (exp == null) {
            return noBuildFor(s, data);
        }
        if (present.isEmpty()) {
            // a failed load of another version than the build wants is itself a mismatch
            for (Observed w : s.cudaWanted()) {
                String[] range = libraryRange(w, data);
                if (range != null ? !inRange(exp.cuda(), range) : !sameCuda(w.value(), exp.cuda())) {
                    return CompatOutcome.mismatch(ID, exp.why() + "; but " + describe(w) + " asks for CUDA " + w.value(),
                            concat(exp.facts(), w.fact()));
                }
            }
            return CompatOutcome.unknown(ID, exp.why() + "; the bundle does not say which CUDA is installed");
        }
        for (Observed p : present) {
            if (!exp.admits(p.value())) {
                return CompatOutcome.mismatch(ID, exp.why() + "; found CUDA " + p.value() + " (" + describe(p) + ")",
                        concat(exp.facts(), p.fact()));
            }
        }
        return CompatOutcome.ok(ID, exp.why() + "; found CUDA " + present.getFirst().value(), concat(exp.facts(), present.getFirst().fact()));
    }

    /**
     * Where TensorFlow ran but its version is not stated: a CUDA present that no TensorFlow release on this
     * platform was built for (CUDA 10.2, say) is a mismatch whatever the version.
     */
    private static CompatOutcome noBuildFor(SoftwareStack s, CompatData data) {
        Fact tf = s.tensorflowEvidence();
        if (s.sourceBuild("tensorflow")) {
            return CompatOutcome.unknown(ID, "TensorFlow was built from source; the bundle does not say for which CUDA");
        }
        List<CsvTable.Row> rows = data.rows(CompatData.TENSORFLOW_BUILDS).stream()
                .filter(r -> s.buildPlatform() == null || s.buildPlatform().equalsIgnoreCase(r.get("platform"))).toList();
        if (tf == null || s.cudaPresent().isEmpty() || rows.isEmpty()) {
            return CompatOutcome.unknown(ID, "the bundle names no framework build or CUDA version it needs");
        }
        Observed p = s.cudaPresent().getFirst();
        // a CUDA newer than every build the table knows says nothing: a later TF release may be built for it
        int[] present = Versions.parse(p.value());
        boolean newerThanAll = present != null && rows.stream().map(r -> Versions.parse(r.get("cuda")))
                .allMatch(v -> v != null && (present[0] > v[0] || (present[0] == v[0] && present.length > 1 && v.length > 1 && present[1] > v[1])));
        if (newerThanAll) {
            return CompatOutcome.unknown(ID, "TensorFlow ran on CUDA " + p.value() + ", newer than any TF build this table lists; "
                    + "the bundle does not say which TF version");
        }
        for (CsvTable.Row r : rows) {
            if (sameCuda(p.value(), r.get("cuda"))) {
                return CompatOutcome.unknown(ID, "TensorFlow ran on CUDA " + p.value() + ", which some TF releases were built for; "
                        + "the bundle does not say which TF version");
            }
        }
        return CompatOutcome.mismatch(ID, "no TensorFlow release" + (s.buildPlatform() == null ? "" : " for " + s.buildPlatform())
                + " was built for CUDA " + p.value() + " (" + describe(p) + ")", List.of(tf, p.fact()));
    }

    static String describe(Observed o) {
        return switch (o.fact()) {
            case dev.crashlab.fact.LibraryLoadFailure l -> l.library();
            case dev.crashlab.fact.VersionFact v -> v.component() + (v.origin() == null ? "" : " from " + v.origin());
            default -> o.fact().kind();
        };
    }

    static List<Fact> concat(List<Fact> a, Fact b) {
        List<Fact> out = new ArrayList<>(a);
        if (!out.contains(b)) {
            out.add(b);
        }
        return out;
    }
}
