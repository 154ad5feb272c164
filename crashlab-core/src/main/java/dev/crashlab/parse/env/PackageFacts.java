package dev.crashlab.parse.env;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.VersionFact;
import dev.crashlab.parse.ParseResult;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns one installed package (a pip or conda row) into facts: its version, and where its name means more
 * (a CUDA library wheel, a CPU-only or CUDA-tagged framework build) the shared component it stands for.
 */
final class PackageFacts {

    /** Package names that are another name of a component the diagnosis compares. */
    private static final Map<String, String> ALIASES = Map.ofEntries(
            Map.entry("pytorch", "torch"),
            Map.entry("tensorflow-gpu", "tensorflow"),
            Map.entry("tensorflow-cpu", "tensorflow"),
            Map.entry("tensorflow-intel", "tensorflow"),
            Map.entry("tensorflow-macos", "tensorflow"),
            Map.entry("tensorflow-base", "tensorflow"),
            Map.entry("tf-nightly", "tensorflow"),
            Map.entry("tf-nightly-gpu", "tensorflow"),
            Map.entry("cudatoolkit", "cuda-runtime"),
            Map.entry("cuda-cudart", "cuda-runtime"),
            Map.entry("cuda-version", "cuda-runtime"),
            Map.entry("cuda-nvcc", "nvcc"));
    /**
     * NVIDIA's pip wheels of CUDA libraries ({@code nvidia-cudnn-cu12}, CUDA 13's suffix-less
     * {@code nvidia-cublas}): the library part of the name, and the component it is.
     */
    private static final Map<String, String> NVIDIA_WHEELS = Map.ofEntries(
            Map.entry("cudnn", "cudnn"),
            Map.entry("cuda-runtime", "cuda-runtime"),
            Map.entry("cublas", "cublas"),
            Map.entry("nccl", "nccl"),
            Map.entry("cufft", "cufft"),
            Map.entry("curand", "curand"),
            Map.entry("cusolver", "cusolver"),
            Map.entry("cusparse", "cusparse"),
            Map.entry("cuda-cupti", "cupti"),
            Map.entry("cuda-nvrtc", "nvrtc"),
            Map.entry("nvjitlink", "nvjitlink"),
            Map.entry("cuda-nvcc", "nvcc"));
    private static final Pattern NVIDIA_WHEEL = Pattern.compile("nvidia-([a-z0-9-]{2,40}?)(?:-cu\\d{2,3})?");
    private static final Pattern TORCH_LOCAL = Pattern.compile("\\+(?:cu(\\d{2,3})|(cpu))\\b");

    /**
     * Packages published for one OS only, so a listing that holds one states the OS family. Sources: the
     * platform folders (linux-64, win-64, osx-64 ...) each conda package is published for, and the wheel tags on
     * PyPI ({@code nvidia-nccl-*} ships manylinux wheels only: NCCL has no Windows build).
     */
    private static final Map<String, String> ONE_OS_PACKAGES = Map.ofEntries(
            Map.entry("libgcc-mutex", "linux"), Map.entry("libgcc-ng", "linux"), Map.entry("libstdcxx-ng", "linux"),
            Map.entry("ld-impl-linux-64", "linux"), Map.entry("ld-impl-linux-aarch64", "linux"),
            Map.entry("sysroot-linux-64", "linux"), Map.entry("libgomp", "linux"),
            Map.entry("nvidia-nccl-cu11", "linux"), Map.entry("nvidia-nccl-cu12", "linux"), Map.entry("nvidia-nccl-cu13", "linux"),
            Map.entry("vs2015-runtime", "windows"), Map.entry("vc14-runtime", "windows"), Map.entry("ucrt", "windows"),
            Map.entry("m2w64-gcc-libs", "windows"), Map.entry("pywin32", "windows"));

    private PackageFacts() {}

    /** Returns the OS family a package implies ({@code linux}, {@code windows}) when it exists for one OS only, else null. */
    static String osFamilyOf(String rawName) {
        return ONE_OS_PACKAGES.get(VersionText.packageName(rawName));
    }

    /**
     * Adds the facts of package {@code rawName} at {@code version}, stated at {@code ref}; does nothing when
     * the name is empty or the version unknown.
     */
    static void emit(ParseResult.Builder out, String rawName, String version, String origin, SourceRef ref) {
        String name = VersionText.packageName(rawName);
        if (name.isEmpty() || VersionText.unknown(version)) {
            return;
        }
        out.fact(new VersionFact(name, version, origin, List.of(ref)));
        String alias = ALIASES.get(name);
        if (alias == null) {
            Matcher m = NVIDIA_WHEEL.matcher(name);
            if (m.matches()) {
                alias = NVIDIA_WHEELS.get(m.group(1));
            }
        }
        if (alias != null) {
            out.fact(new VersionFact(alias, version, origin, List.of(ref)));
        }
        String component = alias != null ? alias : name;
        if (component.equals("torch")) {
            Matcher m = TORCH_LOCAL.matcher(version);
            if (m.find()) {
                String base = VersionText.withoutLocal(version);
                out.fact(m.group(2) != null
                        ? new BuildInfo("torch", base, null, null, true, List.of(ref))
                        : new BuildInfo("torch", base, VersionText.compactCuda(m.group(1)), null, false, List.of(ref)));
            }
        } else if (name.equals("tensorflow-cpu")) {
            out.fact(new BuildInfo("tensorflow", version, null, null, true, List.of(ref)));
        }
    }
}
