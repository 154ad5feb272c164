package dev.crashlab.fact;

import java.util.List;

/**
 * A version of one component, as some artifact states it ("tensorflow 2.10.1 from pip list").
 *
 * @param component a normalized, lowercase component name: {@code python}, {@code tensorflow},
 *     {@code torch}, {@code keras}, {@code numpy}, {@code cuda-runtime} (the toolkit/runtime in use),
 *     {@code cudnn}, {@code nvidia-driver}, {@code nvcc}, {@code os}, or a package name as pip writes it
 * @param version the version as stated (e.g. {@code 2.10.1}, {@code 8.1.0}, {@code 11.2})
 * @param origin how the artifact said it: {@code pip list}, {@code conda list}, {@code collect_env},
 *     {@code nvcc -V}, {@code nvidia-smi}, {@code log}, {@code env}...
 */
public record VersionFact(String component, String version, String origin, List<SourceRef> sources)
        implements EnvironmentFact {

    public VersionFact {
        sources = List.copyOf(sources);
    }

    @Override
    public VersionFact withSources(List<SourceRef> s) {
        return new VersionFact(component, version, origin, s);
    }
}
