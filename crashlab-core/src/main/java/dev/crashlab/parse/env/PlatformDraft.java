package dev.crashlab.parse.env;

import dev.crashlab.fact.Platform;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.parse.ParseResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Gathers what several lines of one listing say about the platform, so the listing yields one
 * {@link Platform} with every line it came from rather than one partial platform per line.
 */
final class PlatformDraft {

    /** The CPU flags that decide which wheels run (the rest of a {@code Flags:} line is noise here). */
    private static final Set<String> RELEVANT_FLAGS = Set.of("sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c",
            "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx512_vnni", "avx512_bf16", "avx_vnni",
            "amx_bf16", "amx_tile", "amx_int8");

    private String os;
    private String family;
    private String arch;
    private String python;
    private String cpu;
    private boolean cpuFromMachine;
    private final Set<String> flags = new LinkedHashSet<>();
    private final List<SourceRef> sources = new ArrayList<>();

    /** Records the OS as written (the first statement wins) and its family. */
    void os(String value, SourceRef ref) {
        if (os == null && value != null && !value.isBlank()) {
            os = value.strip();
            family(familyOf(os), ref);
            add(ref);
        }
    }

    /** Records the OS family ({@code windows}, {@code linux}, {@code macos}, {@code wsl2}); wsl2 refines linux. */
    void family(String value, SourceRef ref) {
        if (value == null) {
            return;
        }
        if (family == null || (value.equals("wsl2") && family.equals("linux"))) {
            family = value;
            add(ref);
        }
    }

    /** Records the CPU architecture, normalized ({@code AMD64} is {@code x86_64}, {@code aarch64} is {@code arm64}). */
    void arch(String value, SourceRef ref) {
        if (arch == null && value != null && !value.isBlank()) {
            String a = value.strip().toLowerCase(Locale.ROOT);
            arch = switch (a) {
                case "amd64", "x64", "x86-64" -> "x86_64";
                case "aarch64" -> "arm64";
                default -> a;
            };
            add(ref);
        }
    }

    /** Records the Python version. */
    void python(String value, SourceRef ref) {
        if (python == null && value != null) {
            python = value;
            add(ref);
        }
    }

    /** Records the CPU model. */
    void cpu(String value, SourceRef ref) {
        if (cpu == null && value != null && !value.isBlank()) {
            cpu = value.strip();
            add(ref);
        }
    }

    /**
     * Records the CPU model as the machine reports it ({@code lscpu}, {@code /proc/cpuinfo} "model name"): it
     * replaces a model a person wrote ("Intel Core i3" above a pasted cpuinfo that says "Common KVM processor").
     */
    void cpuFromMachine(String value, SourceRef ref) {
        if (value != null && !value.isBlank() && !cpuFromMachine) {
            cpu = value.strip();
            cpuFromMachine = true;
            add(ref);
        }
    }

    /** Records the wheel-relevant flags of a whitespace-separated flag list. */
    void flags(String flagList, SourceRef ref) {
        boolean any = false;
        for (String f : flagList.strip().toLowerCase(Locale.ROOT).split("\\s+")) {
            if (RELEVANT_FLAGS.contains(f)) {
                any |= flags.add(f);
            }
        }
        if (any) {
            add(ref);
        }
    }

    /** Adds the platform to {@code out} when anything was stated. */
    void emit(ParseResult.Builder out) {
        if (os != null || family != null || arch != null || python != null || cpu != null || !flags.isEmpty()) {
            out.fact(new Platform(os, family, arch, python, cpu, List.copyOf(flags), sources));
        }
    }

    /** Returns the OS family a name implies, or null when it implies none. */
    static String familyOf(String os) {
        String o = os.toLowerCase(Locale.ROOT);
        if (o.contains("wsl")) {
            return "wsl2";
        }
        if (o.contains("windows") || o.startsWith("win")) {
            return "windows";
        }
        if (o.contains("mac") || o.contains("darwin") || o.contains("os x")) {
            return "macos";
        }
        if (o.contains("linux") || o.contains("ubuntu") || o.contains("debian") || o.contains("centos")
                || o.contains("fedora") || o.contains("red hat") || o.contains("rhel") || o.contains("suse")
                || o.contains("arch") && !o.contains("arm") || o.contains("mint") || o.contains("rocky")
                || o.contains("alma") || o.contains("pop!_os") || o.contains("manjaro") || o.contains("amazon")
                || o.contains("kali")) {
            return "linux";
        }
        return null;
    }

    private void add(SourceRef ref) {
        if (!sources.contains(ref)) {
            sources.add(ref);
        }
    }
}
