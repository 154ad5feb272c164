package dev.crashlab.repro.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.fact.Fact;
import dev.crashlab.reader.BundleFacts;
import dev.crashlab.reader.service.StoredFacts;
import dev.crashlab.repro.MemoryEstimate;
import dev.crashlab.repro.MemoryEstimator;
import dev.crashlab.repro.ReproSpec;
import dev.crashlab.repro.ReproSpecJson;
import dev.crashlab.repro.ReproSpecs;
import dev.crashlab.repro.SpecProblem;
import dev.crashlab.domain.DomainException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.stream.Collectors;

/** Makes the reproduction spec a bundle's facts describe, and checks and sizes the specs users send. */
@ApplicationScoped
public class SpecDrafts {

    @Inject
    BundleService bundles;

    @Inject
    StoredFacts storedFacts;

    /**
     * A bundle's spec, as the Reproduce panel first shows it.
     *
     * @param bundleId the bundle
     * @param spec the spec (its {@code "format": 1} document on the wire); null when the facts hold no convolution
     * @param notes what the extraction assumed or could not read
     * @param estimate the memory estimate of the spec (snake_case, as in replay results); null without a spec
     * @param suggestedMemoryCapBytes the reporter's card's memory, to emulate; null when no file stated it
     */
    public record Draft(long bundleId, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) ReproSpec spec, List<String> notes, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) MemoryEstimate estimate,
            @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Long suggestedMemoryCapBytes) {}

    /**
     * A spec checked and sized.
     *
     * @param spec the spec, normalised (explicit padding, every field written)
     * @param estimate its memory estimate
     */
    public record Checked(ReproSpec spec, MemoryEstimate estimate) {}

    /** Returns the spec the bundle's stored facts give (the blobs are not read again). */
    public Draft draft(long bundleId) {
        if (bundles.find(bundleId).isEmpty()) {
            throw DomainException.notFound("no bundle " + bundleId);
        }
        List<Fact> facts = storedFacts.find(bundleId, false).map(BundleFacts::facts).orElseThrow(() -> new DomainException(
                DomainException.Kind.CONFLICT, "bundle-processing", "Bundle still being read",
                "bundle " + bundleId + " has not been read yet; its reproduction draft follows when it is"));
        ReproSpec spec = ReproSpecs.fromFacts(facts);
        Long cap = spec.reporterGpu() == null ? null : spec.reporterGpu().memoryTotalMiB() * MemoryEstimator.MIB;
        if (spec.layers().isEmpty()) {
            return new Draft(bundleId, null, spec.notes(), null, cap);
        }
        return new Draft(bundleId, spec, spec.notes(), MemoryEstimator.estimate(spec), cap);
    }

    /** Fails with 404 unless the bundle exists. */
    public void requireBundle(long bundleId) {
        if (bundles.find(bundleId).isEmpty()) {
            throw DomainException.notFound("no bundle " + bundleId);
        }
    }

    /**
     * Checks a spec document as a request carried it (422 naming each bad field) and returns it with its estimate; the
     * spec is written back normalised (explicit padding, every field).
     */
    public Checked check(JsonNode spec) {
        ReproSpecJson.Read read = ReproSpecJson.read(spec);
        if (!read.ok()) {
            throw new DomainException(DomainException.Kind.UNPROCESSABLE, "bad-spec", "Invalid reproduction spec", read.problems().stream()
                    .map(SpecProblem::toString).collect(Collectors.joining("; ")));
        }
        return new Checked(read.spec(), MemoryEstimator.estimate(read.spec()));
    }
}
