package dev.crashlab.web;

import dev.crashlab.account.Roles;
import jakarta.annotation.security.RolesAllowed;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.unpack.UnpackLimits;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** Tells clients the upload limits, so they can refuse an oversized bundle before sending a byte of it. */
@Path("/limits")
@Produces(MediaType.APPLICATION_JSON)
public class LimitsResource {

    /** The upload limits in force. */
    public record Limits(long maxRequestBytes, long maxExpandedBytes, int maxFiles, int maxDepth, int maxRatio) {}

    @Inject
    BundleService bundles;

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "The upload limits in force")
    public Limits get() {
        UnpackLimits u = bundles.limits();
        return new Limits(bundles.maxRequestBytes(), u.maxExpandedBytes(), u.maxFiles(), u.maxDepth(), u.maxRatio());
    }
}
