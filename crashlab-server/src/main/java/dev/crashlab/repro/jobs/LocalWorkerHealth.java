package dev.crashlab.repro.jobs;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * The server's own reproduction worker in {@code /q/health}: DOWN while it is on but its thread is not running
 * (between a death and its restart), with how often it died and the last cause; UP otherwise (and when it is off).
 */
@Readiness
@ApplicationScoped
public class LocalWorkerHealth implements HealthCheck {

    @Inject
    LocalWorker worker;

    @Override
    public HealthCheckResponse call() {
        LocalWorker.State s = worker.state();
        HealthCheckResponseBuilder b = HealthCheckResponse.named("local-reproduction-worker")
                .status(!s.enabled() || s.alive())
                .withData("enabled", s.enabled())
                .withData("alive", s.alive())
                .withData("deaths", s.deaths());
        if (s.lastDeathAt() != null) {
            b.withData("last-death-at", s.lastDeathAt().toString()).withData("last-death", s.lastDeath());
        }
        return b.build();
    }
}
