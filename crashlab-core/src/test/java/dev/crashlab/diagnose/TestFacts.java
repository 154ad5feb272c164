package dev.crashlab.diagnose;

import dev.crashlab.fact.BuildInfo;
import dev.crashlab.fact.ExitStatus;
import dev.crashlab.fact.GpuDevice;
import dev.crashlab.fact.LibraryLoadFailure;
import dev.crashlab.fact.MemoryShortage;
import dev.crashlab.fact.Platform;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.fact.StatusCode;
import dev.crashlab.fact.TrainingSetup;
import dev.crashlab.fact.VersionFact;
import java.util.List;
import java.util.Map;

/** Builds the facts engine and check tests need, each with a one-line source in {@code test.log}. */
public final class TestFacts {

    private TestFacts() {}

    static List<SourceRef> at(String text) {
        return List.of(new SourceRef("test.log", 1, text));
    }

    public static VersionFact version(String component, String version, String origin) {
        return new VersionFact(component, version, origin, at(component + " " + version));
    }

    public static BuildInfo build(String framework, String version, String cuda, String cudnn, boolean cpuOnly) {
        return new BuildInfo(framework, version, cuda, cudnn, cpuOnly, at(framework + " " + version));
    }

    public static LibraryLoadFailure lib(String library) {
        return new LibraryLoadFailure(library, "not found", at("Could not load dynamic library '" + library + "'"));
    }

    public static GpuDevice gpu(String name, String driver, String driverCuda, Long memoryMiB) {
        return new GpuDevice(0, name, null, null, memoryMiB, null, driver, driverCuda, null, null, null, null, null, null,
                null, null, null, null, List.of(), Map.of(), at(name));
    }

    public static Platform platform(String osFamily, String python) {
        return new Platform(osFamily, osFamily, "x86_64", python, null, List.of(), at("os: " + osFamily));
    }

    public static TrainingSetup dtype(String policy) {
        return new TrainingSetup(null, null, policy, at("set_global_policy('" + policy + "')"));
    }

    public static ExitStatus fastFail() {
        return new ExitStatus(-1073740791, "0xC0000409", "STATUS_STACK_BUFFER_OVERRUN", null, ExitStatus.Kind.NTSTATUS,
                at("Process finished with exit code -1073740791 (0xC0000409)"));
    }

    public static MemoryShortage gpuOom() {
        return new MemoryShortage("gpu", "2.00 GiB", null, null, null, at("CUDA out of memory. Tried to allocate 2.00 GiB"));
    }

    public static StatusCode status(String family, String name) {
        return new StatusCode(family, name, at(name));
    }
}
