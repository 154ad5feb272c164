package dev.crashlab.web.problem;

import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.domain.DomainException;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticator;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Turns every error a request can end in into a problem+json response; no stack trace reaches a client. */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    @ServerExceptionMapper
    public Response rejected(BundleRejectedException e, HttpServerRequest request) {
        return BundleRejections.problem(e, request.path()).toResponse();
    }

    @ServerExceptionMapper
    public Response problem(ProblemException e, HttpServerRequest request) {
        return e.toProblem(request.path()).toResponse();
    }

    @ServerExceptionMapper
    public Response domain(DomainException e, HttpServerRequest request) {
        int status = switch (e.kind()) {
            case INVALID -> 400;
            case NOT_FOUND -> 404;
            case CONFLICT -> 409;
            case TOO_LARGE -> 413;
            case UNPROCESSABLE -> 422;
            case UNAUTHENTICATED -> 401;
            case FORBIDDEN -> 403;
            case TOO_MANY -> 429;
        };
        Response response = Problem.of(e.slug(), e.title(), status, e.getMessage(), request.path()).toResponse();
        return e.retryAfterSeconds() > 0
                ? Response.fromResponse(response).header("Retry-After", Long.toString(e.retryAfterSeconds())).build()
                : response;
    }

    @ServerExceptionMapper
    public Response unauthenticated(io.quarkus.security.AuthenticationFailedException e, HttpServerRequest request) {
        return Response.fromResponse(Problem.of("unauthenticated", "Sign in needed", 401, "this needs a signed-in session or "
                + "`Authorization: Bearer <API token>`; the request had none, or its token or session is unknown, "
                + "expired or revoked", request.path()).toResponse()).header("WWW-Authenticate", "Bearer realm=\"CrashLab\"").build();
    }

    @ServerExceptionMapper
    public Uni<Response> unauthorized(io.quarkus.security.UnauthorizedException e, HttpServerRequest request, RoutingContext ctx) {
        HttpAuthenticator authenticator = ctx.get(HttpAuthenticator.class.getName());
        if (SSO_LOGIN.equals(request.path()) && authenticator != null) {
            // single sign-on: the code-flow mechanism's challenge sends the browser to the identity provider
            // (a redirect, with its state cookie), as Quarkus' own mapper would
            return authenticator.getChallenge(ctx).map(c -> {
                if (c == null) {
                    return unauthenticated(new io.quarkus.security.AuthenticationFailedException(), request);
                }
                Response.ResponseBuilder challenge = Response.status(c.status);
                c.getHeaders().forEach((name, value) -> challenge.header(name.toString(), value));
                return challenge.build();
            });
        }
        return Uni.createFrom().item(unauthenticated(new io.quarkus.security.AuthenticationFailedException(), request));
    }

    /** The single sign-on path (AuthResource.oidcLogin), whose challenge is a redirect to the provider. */
    static final String SSO_LOGIN = "/api/auth/oidc/login";

    @ServerExceptionMapper
    public Response forbidden(io.quarkus.security.ForbiddenException e, HttpServerRequest request) {
        return Problem.of("forbidden", "Not allowed", 403, "your roles do not allow this; an admin can "
                + "give you another role", request.path()).toResponse();
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, HttpServerRequest request) {
        int status = e.getResponse().getStatus();
        Response.Status.Family family = Response.Status.Family.familyOf(status);
        if (family != Response.Status.Family.CLIENT_ERROR && family != Response.Status.Family.SERVER_ERROR) {
            return e.getResponse();
        }
        String title = Response.Status.fromStatusCode(status) == null
                ? "HTTP " + status
                : Response.Status.fromStatusCode(status).getReasonPhrase();
        String detail = switch (status) {
            case 404 -> "no resource at " + request.path();
            case 405 -> request.method() + " is not allowed on " + request.path();
            case 415 -> "unsupported Content-Type `" + request.getHeader("Content-Type")
                    + "`: send multipart/form-data, or a zip, tar or gzip archive as the body";
            case 406 -> "cannot produce any of the accepted media types (" + request.getHeader("Accept") + ")";
            default -> e.getMessage();
        };
        return Problem.of("http-" + status, title, status, detail, request.path()).toResponse();
    }

    @ServerExceptionMapper
    public Response storeUnavailable(dev.crashlab.bundle.BlobStoreUnavailableException e, HttpServerRequest request) {
        LOG.warnf("%s %s: %s", request.method(), request.path(), e.getMessage());
        return Problem.of("blob-store-unavailable", "Blob store unavailable", 503, e.getMessage(), request.path()).toResponse();
    }

    @ServerExceptionMapper
    public Response io(IOException e, HttpServerRequest request) {
        // A client that hangs up mid-upload surfaces here too; the request is gone, the log says why.
        LOG.warnf("I/O error on %s %s: %s", request.method(), request.path(), e.toString());
        return Problem.of("io-error", "I/O error", 500,
                "the server could not read or write data for this request (" + e.getClass().getSimpleName()
                        + "); nothing was stored. Retry; if it persists, check the server's disk and log.",
                request.path()).toResponse();
    }

    @ServerExceptionMapper(priority = jakarta.ws.rs.Priorities.USER + 1000)
    public Response unexpected(RuntimeException e, HttpServerRequest request) {
        LOG.errorf(e, "unexpected error on %s %s", request.method(), request.path());
        return Problem.of("internal-error", "Internal error", 500,
                "the server hit an unexpected error (" + e.getClass().getSimpleName()
                        + "); it has been logged. Nothing was stored by this request.",
                request.path()).toResponse();
    }
}
