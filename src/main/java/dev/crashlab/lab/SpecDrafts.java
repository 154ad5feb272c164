package dev.crashlab.lab;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.web.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Makes the reproduction spec a bundle's facts describe, and checks specs users send. */
@ApplicationScoped
public class SpecDrafts {

    @Inject
    BundleService bundles;

    /** A bundle's extracted spec; TEMPORARY until the repro branch's ReproSpecs lands (spec is null). */
    public record Draft(long bundleId, JsonNode spec) {}

    /** Returns the spec the bundle's facts give. */
    public Draft draft(long bundleId) {
        requireBundle(bundleId);
        return new Draft(bundleId, null);
    }

    /** Fails with 404 unless the bundle exists. */
    public void requireBundle(long bundleId) {
        if (bundles.find(bundleId).isEmpty()) {
            throw ProblemException.notFound("no bundle " + bundleId);
        }
    }

    /** Fails with a 422 problem naming each bad field unless {@code spec} is a valid spec. */
    public void validate(JsonNode spec) {
        if (!spec.isObject()) {
            throw new ProblemException(422, "bad-spec", "Invalid reproduction spec", "a spec is a JSON object");
        }
    }
}
