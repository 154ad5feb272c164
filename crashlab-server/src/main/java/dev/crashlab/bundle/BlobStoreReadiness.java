package dev.crashlab.bundle;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** {@code /q/health/ready}: DOWN, with the reason, while the blob store cannot be used (see {@link Deployment}). */
@Readiness
@ApplicationScoped
public class BlobStoreReadiness implements HealthCheck {

    @Inject
    Deployment deployment;
    @Inject
    StoredBlobs blobs;

    @Override
    public HealthCheckResponse call() {
        String problem = deployment.problem();
        var r = HealthCheckResponse.named("blob-store").withData("store", blobs.where());
        return problem == null ? r.up().build() : r.down().withData("reason", problem).build();
    }
}
