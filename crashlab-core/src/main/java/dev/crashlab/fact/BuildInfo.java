package dev.crashlab.fact;

import java.util.List;

/**
 * What a framework build was compiled for: {@code torch 2.0.1+cu117} was built for CUDA 11.7; TF's
 * {@code get_build_info()} names its CUDA and cuDNN; a CPU-only wheel was built for none.
 *
 * @param framework {@code tensorflow}, {@code torch}, {@code jax}...
 * @param frameworkVersion the framework's version, or null if not stated
 * @param cudaVersion the CUDA version it was built for, or null (unknown, or CPU-only: see {@code cpuOnly})
 * @param cudnnVersion the cuDNN version it was built for, or null
 * @param cpuOnly true when the build has no GPU support at all (e.g. {@code +cpu} wheels, "CUDA used to build PyTorch: None")
 */
public record BuildInfo(String framework, String frameworkVersion, String cudaVersion, String cudnnVersion,
        boolean cpuOnly, List<SourceRef> sources) implements EnvironmentFact {

    public BuildInfo {
        sources = List.copyOf(sources);
    }

    @Override
    public BuildInfo withSources(List<SourceRef> s) {
        return new BuildInfo(framework, frameworkVersion, cudaVersion, cudnnVersion, cpuOnly, s);
    }
}
