package dev.crashlab.compat;

import dev.crashlab.fact.ConvSpec;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.TrainingSetup;
import dev.crashlab.kb.Versions;
import java.util.List;
import java.util.Locale;

/**
 * {@code mixed-precision-vs-gpu}: float16 / mixed precision on a GPU below compute capability 7.0 (no
 * tensor cores), or bfloat16 below 8.0 (no native bf16).
 */
final class MixedPrecisionVsGpu implements CompatCheck {

    static final String ID = "mixed-precision-vs-gpu";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        String dtype = null;
        Fact dtypeFact = null;
        for (Fact f : s.facts()) {
            String d = switch (f) {
                case TrainingSetup t -> t.dtypePolicy();
                case ConvSpec c -> c.mixedPrecision() != null ? c.mixedPrecision() : c.dtype();
                default -> null;
            };
            if (d != null && (d.toLowerCase(Locale.ROOT).contains("16"))) {
                dtype = d.toLowerCase(Locale.ROOT);
                dtypeFact = f;
                break;
            }
        }
        if (dtype == null) {
            return CompatOutcome.unknown(ID, "the bundle states no float16 or bfloat16 compute");
        }
        for (GpuDevice g : s.gpus()) {
            String cc = CompatLookup.computeCapability(data, g);
            if (cc == null || !CompatLookup.isNvidia(g)) {
                continue;
            }
            String needs = dtype.contains("bfloat16") || dtype.contains("bf16") ? "8.0" : "7.0";
            List<Fact> facts = List.of(dtypeFact, g);
            if (Versions.compare(cc, needs) < 0) {
                return CompatOutcome.mismatch(ID, dtype + " needs compute capability " + needs + " or newer; " + g.name() + " is " + cc, facts);
            }
            return CompatOutcome.ok(ID, dtype + " runs natively on " + g.name() + " (compute capability " + cc + ")", facts);
        }
        return CompatOutcome.unknown(ID, dtype + " is used; the GPU's compute capability is not known");
    }
}
