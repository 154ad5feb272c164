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
 * The one request-body limit: every route, whatever its content type or method, gets at most
 * {@link #MAX_BODY_BYTES} (1 MiB) except the bundle upload ({@code POST /api/bundles}), which gets
 * {@code crashlab.upload.max-request-size}. It is enforced before anything parses a body: a declared
 * {@code Content-Length} over the route's limit gets a problem+json 413, and a body without a declared length
 * (chunked) gets a 411 on every route but the upload, whose chunked bodies the HTTP layer's own limit
 * ({@code quarkus.http.limits.max-body-size}, the same size) cuts off.
 *
 * <p>NOTE: this runs as the second Vert.x route (after {@link HttpGuards}), ahead of the HTTP layer's own body
 * limit, which would answer with a bare 413. The limit goes by route, not by {@code Content-Type}: the JSON
 * resources read a body that says nothing about its type too (issue 26: 24 parallel 38 MB bodies without a type
 * ran a 512 MiB server out of memory). A client that sent {@code Expect: 100-continue} is answered at once;
 * otherwise up to {@link #DRAIN_BYTES} past the limit are read and discarded so that the client (which is still
 * sending) can read the answer, and larger bodies get the answer and a closed connection. A chunked upload over
 * the limit is cut off by the HTTP layer itself, with a bare 413; the read it cuts short then fails after that
 * answer, which {@link #afterAnswer} logs in one line.
 */
@ApplicationScoped
public class RequestSizeLimit {

    static final long DRAIN_BYTES = 64L << 20;

    /** Largest body accepted by every route but the bundle upload. */
    static final long MAX_BODY_BYTES = 1L << 20;

    /** The one route that takes large bodies (multipart or archive uploads). */
    static final String UPLOAD_PATH = "/api/bundles";

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
        boolean upload = isUpload(request.method(), ctx.normalizedPath());
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length == null) {
            if (!upload && mayCarryUndeclaredBody(request)) {
                respond(ctx, Problem.of("length-required", "Length required", 411,
                        "send the body with a Content-Length header (at most 1 MiB; only uploads to /api/bundles may be "
                                + "chunked)", request.path()), true);
                return;
            }
            ctx.next();
            return;
        }
        long declared;
        try {
            declared = Long.parseLong(length.strip());
        } catch (NumberFormatException e) {
            declared = -1;
        }
        if (declared < 0) {
            respond(ctx, Problem.of("http-400", "Bad Request", 400, "Content-Length `" + clip(length) + "` is not a number",
                    request.path()), true);
            return;
        }
        long limit = upload ? bundles.maxRequestBytes() : MAX_BODY_BYTES;
        if (declared <= limit) {
            ctx.next();
            return;
        }
        Problem problem = upload ? tooLarge(limit).toProblem(request.path())
                : Problem.of("too-large", "Request too large", 413, "request bodies may be at most 1 MiB here (only "
                        + "uploads to /api/bundles may be larger); this one declares " + clip(length) + " bytes", request.path());
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

    /** Tells whether this is the bundle upload, the one route allowed more than {@link #MAX_BODY_BYTES}. */
    static boolean isUpload(HttpMethod method, String normalizedPath) {
        String path = normalizedPath == null ? "" : normalizedPath;
        while (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return method == HttpMethod.POST && path.equals(UPLOAD_PATH);
    }

    /**
     * Tells whether a request without a Content-Length carries a body of undeclared length: HTTP/1.x chunked (any
     * {@code Transfer-Encoding}), or an HTTP/2 stream that says what type its body is.
     *
     * <p>NOTE: an HTTP/2 stream (h2c) without a Content-Length and without a Content-Type cannot be told from one its
     * headers ended (the end arrives after this handler), so it passes here; {@link UndeclaredBodyLimit} bounds what
     * the REST layer reads of it to {@link #MAX_BODY_BYTES}. (Reading it here instead cannot work: the REST layer
     * pauses the request it is handed, which an HTTP/2 request whose end was read refuses.)
     */
    private static boolean mayCarryUndeclaredBody(HttpServerRequest request) {
        if (request.version() == io.vertx.core.http.HttpVersion.HTTP_2) {
            return request.getHeader(HttpHeaders.CONTENT_TYPE) != null;
        }
        return request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null;
    }

    private static String clip(String s) {
        String t = s.replaceAll("[\\p{Cntrl}`]", "?");
        return t.length() > 40 ? t.substring(0, 40) + "…" : t;
    }

    private void respond(RoutingContext ctx, Problem problem, boolean close) {
        String body;
        try {
            body = json.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            body = "{\"status\":" + problem.status() + "}";
        }
        var response = ctx.response().setStatusCode(problem.status()).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
        if (close && ctx.request().version() != io.vertx.core.http.HttpVersion.HTTP_2) {
            // (HTTP/2 has no Connection header: the stream ends with the answer)
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
