package dev.crashlab.fact;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One typed thing a parser read from an artifact: the single vocabulary that diagnosis, search and
 * reproduction read (they never read raw text).
 *
 * <p>NOTE: facts are records whose last component is {@code sources}; two facts that differ only in their
 * sources are the same fact stated twice, and {@link Facts#dedupe} merges them into one with both sources.
 * The families below are the top level of the hierarchy; each family's records live beside it.
 */
public sealed interface Fact permits ProcessFact, GpuFact, EnvironmentFact, WindowsFact, ModelFact {

    /** Where this fact was read, at least once. */
    List<SourceRef> sources();

    /** Returns this fact with other sources (used to merge duplicates). */
    Fact withSources(List<SourceRef> sources);

    /** The fact's kind, its record name (e.g. {@code ExitStatus}); the JSON's {@code kind}. */
    @JsonProperty(value = "kind", index = 0)
    default String kind() {
        return getClass().getSimpleName();
    }
}
