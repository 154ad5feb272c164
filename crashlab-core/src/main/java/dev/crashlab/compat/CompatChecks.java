package dev.crashlab.compat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Lists every compatibility check, and runs them all so that one check's failure is an unknown, not an abort. */
public final class CompatChecks {

    /** Every check, in the order of {@code kb-articles/README.md}. */
    public static final List<CompatCheck> ALL = List.of(
            new CudaVsFrameworkBuild(),
            new CudnnVsFrameworkBuild(),
            new DriverVsCuda(),
            new GpuArchVsBuild(),
            new TfNativeWindowsGpu(),
            new TorchCpuOnlyBuild(),
            new PythonVsFramework(),
            new CudnnVsCuda(),
            new MixedPrecisionVsGpu(),
            new MultipleCudaVersions());

    private CompatChecks() {}

    /** The ids articles may name. */
    public static Set<String> ids() {
        return ALL.stream().map(CompatCheck::id).collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    /** Runs every check over the stack. */
    public static List<CompatOutcome> evaluate(SoftwareStack stack, CompatData data) {
        return evaluate(ALL, stack, data);
    }

    static List<CompatOutcome> evaluate(List<CompatCheck> checks, SoftwareStack stack, CompatData data) {
        List<CompatOutcome> out = new ArrayList<>();
        for (CompatCheck c : checks) {
            try {
                out.add(c.evaluate(stack, data));
            } catch (RuntimeException e) {
                out.add(CompatOutcome.unknown(c.id(), "the check failed: " + e));
            }
        }
        return out;
    }
}
