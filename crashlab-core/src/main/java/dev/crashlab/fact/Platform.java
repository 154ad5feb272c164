package dev.crashlab.fact;

import java.util.List;

/**
 * The machine's platform as an artifact states it; null components were not stated.
 *
 * @param os the operating system as written ({@code Microsoft Windows 11 Pro}, {@code Ubuntu 20.04.6 LTS})
 * @param osFamily {@code windows}, {@code linux}, {@code macos}, {@code wsl2}, or null
 * @param arch {@code x86_64}, {@code arm64}..., or null
 * @param python the Python version, or null
 * @param cpu the CPU model, or null
 * @param cpuFlags CPU feature flags that matter for wheels ({@code avx}, {@code avx2}, {@code avx512f}); empty if not stated
 */
public record Platform(String os, String osFamily, String arch, String python, String cpu, List<String> cpuFlags,
        List<SourceRef> sources) implements EnvironmentFact {

    public Platform {
        cpuFlags = List.copyOf(cpuFlags);
        sources = List.copyOf(sources);
    }

    @Override
    public Platform withSources(List<SourceRef> s) {
        return new Platform(os, osFamily, arch, python, cpu, cpuFlags, s);
    }
}
