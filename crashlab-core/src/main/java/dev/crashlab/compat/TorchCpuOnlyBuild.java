package dev.crashlab.compat;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.VersionFact;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code torch-cpu-only-build}: a CPU-only PyTorch ({@code +cpu}, "CUDA used to build PyTorch: None",
 * {@code cuda available: False} from a CPU build) on a machine with an NVIDIA GPU.
 */
final class TorchCpuOnlyBuild implements CompatCheck {

    static final String ID = "torch-cpu-only-build";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        Fact cpuBuild = null;
        boolean cudaBuild = false;
        for (BuildInfo b : s.builds()) {
            if (b.framework() != null && b.framework().toLowerCase(Locale.ROOT).contains("torch")) {
                if (b.cpuOnly()) {
                    cpuBuild = b;
                } else if (b.cudaVersion() != null) {
                    cudaBuild = true;
                }
            }
        }
        Observed torch = s.framework("torch");
        if (cpuBuild == null && torch != null && torch.value().toLowerCase(Locale.ROOT).contains("+cpu")) {
            cpuBuild = torch.fact();
        }
        if (cpuBuild == null) {
            if (cudaBuild) {
                return CompatOutcome.ok(ID, "PyTorch is a CUDA build", List.of());
            }
            return CompatOutcome.unknown(ID, "the bundle does not say whether PyTorch is a CUDA build");
        }
        List<Fact> facts = new ArrayList<>(List.of(cpuBuild));
        GpuDevice gpu = s.gpus().stream().filter(CompatLookup::isNvidia).findFirst().orElse(null);
        Fact driver = s.drivers().isEmpty() ? null : s.drivers().getFirst().fact();
        if (gpu == null && driver == null) {
            for (Fact f : s.facts()) {
                if (f instanceof VersionFact v && "gpu-count".equals(v.component()) && !"0".equals(v.version())) {
                    driver = f;
                }
            }
        }
        if (gpu == null && driver == null) {
            return CompatOutcome.unknown(ID, "PyTorch is a CPU-only build; the bundle names no NVIDIA GPU");
        }
        facts.add(gpu != null ? gpu : driver);
        return CompatOutcome.mismatch(ID, "PyTorch is a CPU-only build, yet the machine has "
                + (gpu != null && gpu.name() != null ? "an NVIDIA " + gpu.name() : "an NVIDIA GPU") + ": it will never use it", facts);
    }
}
