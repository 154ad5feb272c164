package dev.crashlab.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crashlab.web.problem.Problem;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Serves the bundle collector scripts users download and run on the crashed machine, at
 * {@code /collector/<name>}.
 *
 * <p>NOTE: the scripts are packaged from the top-level {@code collector/} folder; only the names in
 * {@link #SCRIPTS} are served (no path from the request reaches the class loader). This is a Vert.x
 * route, not a REST resource, because REST lives under {@code /api} and the page links a stable
 * top-level URL.
 */
@ApplicationScoped
public class CollectorRoutes {

    /** Script name to its media type. */
    static final Map<String, String> SCRIPTS = Map.of(
            "collect-crash-bundle.sh", "text/x-shellscript; charset=utf-8",
            "collect-crash-bundle.ps1", "text/plain; charset=utf-8");

    @Inject
    ObjectMapper json;

    private final Map<String, Buffer> bodies = new java.util.concurrent.ConcurrentHashMap<>();

    void install(@Observes Router router) {
        router.get("/collector/:name").order(-100).handler(this::serve);
        router.get("/collector/").order(-100).handler(this::index);
    }

    private void serve(RoutingContext ctx) {
        String name = ctx.pathParam("name");
        String type = SCRIPTS.get(name);
        if (type == null) {
            notFound(ctx, "no collector script named `" + name + "`; there are " + String.join(", ",
                    SCRIPTS.keySet().stream().sorted().toList()));
            return;
        }
        Buffer body = bodies.computeIfAbsent(name, CollectorRoutes::load);
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, type)
                .putHeader("Content-Disposition", "attachment; filename=\"" + name + "\"")
                .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
                .end(body);
    }

    private void index(RoutingContext ctx) {
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8").end("""
                CrashLab bundle collectors: run one on the machine where the job crashed, then upload the zip.

                Linux / WSL2:  bash collect-crash-bundle.sh path/to/train.log
                               /collector/collect-crash-bundle.sh
                Windows:       powershell -ExecutionPolicy Bypass -File collect-crash-bundle.ps1 path\\to\\train.log
                               /collector/collect-crash-bundle.ps1
                """);
    }

    private static Buffer load(String name) {
        try (InputStream in = CollectorRoutes.class.getClassLoader().getResourceAsStream("collector/" + name)) {
            if (in == null) {
                throw new IllegalStateException("collector/" + name + " is not packaged (pom.xml resources)");
            }
            return Buffer.buffer(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void notFound(RoutingContext ctx, String detail) {
        Problem problem = Problem.of("not-found", "Not Found", 404, detail, ctx.request().path());
        String body;
        try {
            body = json.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            body = "{\"status\":404}";
        }
        ctx.response().setStatusCode(404).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE).end(body);
    }
}
