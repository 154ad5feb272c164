package dev.crashlab.compat;

import dev.crashlab.compat.CsvTable.Row;
import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.kb.Versions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code gpu-arch-vs-build}: the GPU's compute capability has no kernels in the build: not in a PyTorch
 * wheel's arch list (nor PTX at or below it), not in TF's compiled arch list, or newer than anything the
 * build's CUDA version can compile for.
 */
final class GpuArchVsBuild implements CompatCheck {

    static final String ID = "gpu-arch-vs-build";

    /**
     * The newest compute capability each CUDA release can compile for (CUDA Toolkit release notes and
     * the CUDA C Programming Guide, "compute capabilities" per toolkit): 10.x -> 7.5, 11.0 -> 8.0,
     * 11.1-11.7 -> 8.6, 11.8 -> 9.0, 12.8 -> 12.0.
     */
    static String newestArch(String cuda) {
        int[] v = Versions.parse(cuda);
        if (v == null) {
            return null;
        }
        int major = v[0];
        int minor = v.length > 1 ? v[1] : 0;
        if (major < 9) {
            return "6.2";
        }
        if (major == 9) {
            return "7.2";
        }
        if (major == 10) {
            return "7.5";
        }
        if (major == 11) {
            return minor == 0 ? "8.0" : minor < 8 ? "8.6" : "9.0";
        }
        return minor >= 8 ? "12.0" : "9.0";
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public CompatOutcome evaluate(SoftwareStack s, CompatData data) {
        GpuDevice gpu = null;
        String cc = null;
        for (GpuDevice g : s.gpus()) {
            String c = CompatLookup.computeCapability(data, g);
            if (c != null && CompatLookup.isNvidia(g)) {
                gpu = g;
                cc = c;
                break;
            }
        }
        if (gpu == null) {
            return CompatOutcome.unknown(ID, "no NVIDIA GPU with a known compute capability in the bundle");
        }
        String sm = "sm_" + cc.replace(".", "");
        String gpuName = gpu.name() == null ? "the GPU" : gpu.name();
        // TF's own list of compiled architectures, where the bundle has it
        List<Fact> tfArch = new ArrayList<>();
        for (Fact f : s.facts()) {
            if (f instanceof VersionFact v && "tensorflow-cuda-arch".equalsIgnoreCase(v.component())) {
                tfArch.add(f);
            }
        }
        if (!tfArch.isEmpty()) {
            List<String> archs = tfArch.stream().map(f -> ((VersionFact) f).version().toLowerCase(Locale.ROOT)).toList();
            List<Fact> facts = new ArrayList<>(tfArch);
            facts.add(gpu);
            return covered(archs, cc) ? CompatOutcome.ok(ID, gpuName + " is " + sm + "; the TF build has kernels for it", facts)
                    : CompatOutcome.mismatch(ID, gpuName + " is " + sm + "; the TF build was compiled for " + String.join(" ", archs), facts);
        }
        // a PyTorch wheel's arch list
        Observed torch = s.framework("torch");
        String buildCuda = null;
        Fact buildFact = null;
        for (BuildInfo b : s.builds()) {
            if (b.cudaVersion() != null && !b.cpuOnly()) {
                buildCuda = b.cudaVersion();
                buildFact = b;
            }
        }
        if (torch != null) {
            Row wheel = CompatLookup.torchWheel(data, torch.value(), buildCuda);
            if (wheel != null && !wheel.get("arch_list").isBlank()) {
                List<String> archs = List.of(wheel.get("arch_list").toLowerCase(Locale.ROOT).split("\\s+"));
                List<Fact> facts = new ArrayList<>(List.of(torch.fact(), gpu));
                if (buildFact != null) {
                    facts.add(buildFact);
                }
                String build = "PyTorch " + torch.value() + (buildCuda == null ? "" : " (CUDA " + buildCuda + ")");
                return covered(archs, cc) ? CompatOutcome.ok(ID, gpuName + " is " + sm + "; " + build + " has kernels for it", facts)
                        : CompatOutcome.mismatch(ID, gpuName + " is " + sm + "; " + build + " ships kernels for " + wheel.get("arch_list"), facts);
            }
        }
        // else: the newest architecture the build's CUDA can target
        CudaVsFrameworkBuild.Expected exp = CudaVsFrameworkBuild.expected(s, data);
        String cuda = exp != null ? exp.cuda() : buildCuda;
        List<Fact> facts = new ArrayList<>();
        String why;
        if (exp != null) {
            why = exp.why();
            facts.addAll(exp.facts());
        } else if (!s.cudaPresent().isEmpty() && torch != null) {
            // a conda PyTorch uses the cudatoolkit package it was installed with
            Observed p = s.cudaPresent().getFirst();
            cuda = p.value();
            why = "PyTorch " + torch.value() + " runs on CUDA " + cuda;
            facts.add(p.fact());
            facts.add(torch.fact());
        } else {
            return CompatOutcome.unknown(ID, gpuName + " is " + sm + "; the bundle does not say what the build targets");
        }
        facts.add(gpu);
        String newest = newestArch(cuda);
        if (newest != null && Versions.compare(cc, newest) > 0) {
            return CompatOutcome.mismatch(ID, gpuName + " is " + sm + "; " + why + ", which has no " + sm + " kernels (newest: sm_"
                    + newest.replace(".", "") + ")", facts);
        }
        return CompatOutcome.ok(ID, gpuName + " is " + sm + "; " + why + ", which can target it", facts);
    }

    // An arch list covers a capability with its exact SASS (same major, minor <= for binary compatibility) or PTX at or below it.
    static boolean covered(List<String> archs, String cc) {
        int[] c = Versions.parse(cc);
        if (c == null) {
            return true;
        }
        for (String a : archs) {
            String digits = a.replaceAll("[^0-9]", "");
            if (digits.length() < 2) {
                continue;
            }
            int major = Integer.parseInt(digits.substring(0, digits.length() - 1));
            int minor = digits.charAt(digits.length() - 1) - '0';
            int cminor = c.length > 1 ? c[1] : 0;
            if (a.startsWith("sm_") && major == c[0] && minor <= cminor) {
                return true;
            }
            if (a.startsWith("compute_") && (major < c[0] || major == c[0] && minor <= cminor)) {
                return true;
            }
        }
        return false;
    }
}
