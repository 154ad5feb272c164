package dev.crashlab.compat;

import dev.crashlab.compat.CsvTable.Row;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.kb.Versions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code driver-vs-cuda}: the driver is older than the CUDA version in use needs, judged by the highest
 * CUDA version the driver reports (nvidia-smi's "CUDA Version") or by the driver table, where the
 * minor-version-compatibility floor of the CUDA major is enough to run.
 */
final class DriverVsCuda implements CompatCheck {

    static final String ID = "driver-vs-cuda";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        String needed = null;
        String why = null;
        List<Fact> facts = new ArrayList<>();
        CudaVsFrameworkBuild.Expected exp = CudaVsFrameworkBuild.expected(s, data);
        if (exp != null) {
            needed = exp.cuda();
            why = exp.why();
            facts.addAll(exp.facts());
        } else if (!s.cudaPresent().isEmpty()) {
            Observed p = s.cudaPresent().getFirst();
            needed = p.value();
            why = "CUDA " + p.value() + " is in use (" + CudaVsFrameworkBuild.describe(p) + ")";
            facts.add(p.fact());
        }
        if (needed == null) {
            return CompatOutcome.unknown(ID, "the bundle names no CUDA version");
        }
        for (GpuDevice g : s.gpus()) {
            if (g.driverCudaVersion() != null && Versions.compare(g.driverCudaVersion(), Versions.majorMinor(needed)) instanceof Integer c && c < 0) {
                facts.add(g);
                return CompatOutcome.mismatch(ID, why + "; the driver" + (g.driverVersion() == null ? "" : " " + g.driverVersion())
                        + " supports CUDA up to " + g.driverCudaVersion(), facts);
            }
        }
        if (s.drivers().isEmpty()) {
            return CompatOutcome.unknown(ID, why + "; the bundle does not name the driver version");
        }
        Observed driver = s.drivers().getFirst();
        facts.add(driver.fact());
        String platform = s.buildPlatform() == null ? "linux" : s.buildPlatform();
        String column = platform.equals("windows") ? "windows_min" : "linux_min";
        String toolkitMin = null;
        String floor = null;
        for (Row r : CompatLookup.driverRows(data, needed)) {
            String v = r.get(column);
            if (Versions.parse(v) == null) {
                continue;
            }
            if (r.get("kind").toLowerCase(Locale.ROOT).equals("minor")) {
                floor = floor == null || Versions.compare(v, floor) < 0 ? v : floor;
            } else {
                toolkitMin = toolkitMin == null || Versions.compare(v, toolkitMin) < 0 ? v : toolkitMin;
            }
        }
        String min = floor != null ? floor : toolkitMin;
        if (min == null) {
            return CompatOutcome.unknown(ID, why + "; no driver minimum is known for CUDA " + needed);
        }
        Integer c = Versions.compare(driver.value(), min);
        if (c == null) {
            return CompatOutcome.unknown(ID, why + "; cannot read driver version " + driver.value());
        }
        if (c < 0) {
            return CompatOutcome.mismatch(ID, "driver " + driver.value() + " is older than CUDA " + Versions.majorMinor(needed)
                    + " needs (" + min + " on " + platform + "); " + why, facts);
        }
        return CompatOutcome.ok(ID, "driver " + driver.value() + " is new enough for CUDA " + Versions.majorMinor(needed)
                + " (needs " + min + ")", facts);
    }
}
