package dev.crashlab.web;

import dev.crashlab.metrics.Waits;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

/**
 * Names the resource method a request runs (e.g. {@code DiagnosisResource.diagnosis}) for the waits it records on its
 * thread ({@link Waits}), so that {@code crashlab_wait_seconds} says which route waited.
 *
 * <p>NOTE: both filters run on the thread of the resource method (they are not {@code nonBlocking}), which is the
 * thread whose waits are tagged.
 */
public class RouteTag {

    @ServerRequestFilter
    public void enter(SimpleResourceInfo resource) {
        if (resource != null && resource.getResourceClass() != null) {
            Waits.enterRoute(resource.getResourceClass().getSimpleName() + "." + resource.getMethodName());
        }
    }

    @ServerResponseFilter
    public void leave() {
        Waits.leaveRoute();
    }
}
