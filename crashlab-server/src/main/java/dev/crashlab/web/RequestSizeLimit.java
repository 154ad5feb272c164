package dev.crashlab.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.web.problem.Problem;
import dev.crashlab.web.problem.ProblemException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Locale;
import org.jboss.logging.Logger;

/**
 * Refuses an API request whose declared Content-Length is over the upload limit, with a problem+json 413,
 * before any of its body is stored.
 *
 * <p>NOTE: this runs as the first Vert.x route, ahead of the HTTP layer's own body limit, which would
 * answer with a bare 413. A client that sent {@code Expect: 100-continue} is answered at once; otherwise
 * up to {@link #DRAIN_BYTES} past the limit are read and discarded so that the client (which is still
 * sending) can read the answer, and larger bodies get the answer and a closed connection. A chunked
 * body (no declared length) over the limit is cut off by the HTTP layer itself, with a bare 413; the read it cuts
 * short then fails after that answer, which {@link #afterAnswer} logs in one line.
 */
@ApplicationScoped
public class RequestSizeLimit {

    static final long DRAIN_BYTES = 64L << 20;

    @Inject
    BundleService bundles;

    @Inject
    ObjectMapper json;

    private static final Logger LOG = Logger.getLogger(RequestSizeLimit.class);

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE + 10).handler(this::check);
        router.route().order(Integer.MIN_VALUE + 11).failureHandler(RequestSizeLimit::afterAnswer);
    }

    /**
     * A request that fails after its answer was sent: the HTTP layer's own body limit answers a chunked upload over
     * the limit with 413 and then fails the read under way. Nothing more can reach that client, so this says what
     * happened in one line instead of letting the error handler try a second answer (an ERROR with a stack trace).
     */
    private static void afterAnswer(RoutingContext ctx) {
        if (!ctx.response().ended()) {
            ctx.next();
            return;
        }
        Throwable cause = ctx.failure();
        LOG.infof("%s %s was already answered (HTTP %d) when its handler failed; its second answer was dropped (%s)",
                ctx.request().method(), ctx.request().path(), ctx.response().getStatusCode(),
                cause == null ? "status " + ctx.statusCode() : cause.toString());
    }

    private void check(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length == null || !request.path().startsWith("/api/")
                || !(request.method() == HttpMethod.POST || request.method() == HttpMethod.PUT)) {
            ctx.next();
            return;
        }
        long declared;
        try {
            declared = Long.parseLong(length.strip());
        } catch (NumberFormatException e) {
            respond(ctx, Problem.of("http-400", "Bad Request", 400, "Content-Length `" + length + "` is not a number",
                    request.path()), true);
            return;
        }
        long limit = bundles.maxRequestBytes();
        if (declared <= limit) {
            ctx.next();
            return;
        }
        Problem problem = tooLarge(limit).toProblem(request.path());
        String expect = request.getHeader(HttpHeaders.EXPECT);
        if (expect != null && expect.toLowerCase(Locale.ROOT).contains("100-continue")) {
            respond(ctx, problem, false); // the client has not sent the body and will not
        } else if (declared - limit <= DRAIN_BYTES) {
            request.handler(ignored -> {});
            request.endHandler(done -> respond(ctx, problem, false));
            request.resume();
        } else {
            respond(ctx, problem, true);
        }
    }

    private void respond(RoutingContext ctx, Problem problem, boolean close) {
        String body;
        try {
            body = json.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            body = "{\"status\":" + problem.status() + "}";
        }
        var response = ctx.response().setStatusCode(problem.status()).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
        if (close) {
            response.putHeader(HttpHeaders.CONNECTION, "close");
            response.end(body).onComplete(done -> ctx.request().connection().close());
        } else {
            response.end(body);
        }
    }

    /** Returns the problem for a request over {@code limit} bytes. */
    static ProblemException tooLarge(long limit) {
        return new ProblemException(413, "too-large", "Upload too large",
                "the upload is larger than the limit of " + human(limit)
                        + " (crashlab.upload.max-request-size); split the bundle or raise the limit");
    }

    static String human(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
        }
        return bytes + " bytes";
    }
}
