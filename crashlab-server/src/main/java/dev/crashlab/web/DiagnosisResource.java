package dev.crashlab.web;

import dev.crashlab.account.Roles;
import jakarta.annotation.security.RolesAllowed;
import dev.crashlab.diagnose.service.DiagnosisService;
import dev.crashlab.diagnose.service.DiagnosisView;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestPath;

/** Serves a bundle's diagnosis: computed after upload by the reading, stored, and recomputed when the KB has changed since. */
@Path("/bundles/{id}/diagnosis")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class DiagnosisResource {

    @Inject
    DiagnosisService diagnoses;

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "A bundle's ranked causes, answered at once (never waits for its reading; 409 bundle-processing with the progress "
            + "until a diagnosis is stored): {\"bundleId\",\"status\",\"artifactsRead\",\"artifactCount\",\"computedAt\",\"recomputed\",\"hypotheses\":[{\"id\",\"title\",\"category\","
            + "\"confidence\",\"score\",\"evidence\":[{\"matcher\",\"text\",\"weight\",\"specific\",\"source\":{\"artifact\",\"line\",\"text\"},\"sources\"}],"
            + "\"against\"}],\"ask\":[{\"artifact\",\"why\",\"between\"}],\"compat\":[{\"check\",\"result\",\"explanation\",\"sources\"}],\"notes\",\"kbFingerprint\"}")
    public DiagnosisView diagnosis(@RestPath long id) {
        return diagnoses.diagnosis(id).orElseThrow(() -> ProblemException.notFound("no bundle " + id));
    }
}
