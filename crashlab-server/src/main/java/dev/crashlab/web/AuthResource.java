package dev.crashlab.web;

import dev.crashlab.account.AccountService;
import dev.crashlab.account.AccountService.NewSession;
import dev.crashlab.account.AuditLog;
import dev.crashlab.account.Caller;
import dev.crashlab.account.LoginThrottle;
import dev.crashlab.account.SetupLink;
import dev.crashlab.domain.DomainException;
import dev.crashlab.web.auth.Callers;
import dev.crashlab.web.auth.SsoRoles;
import dev.crashlab.web.auth.CrashLabAuthMechanism;
import io.quarkus.security.Authenticated;
import io.quarkus.security.identity.SecurityIdentity;
import dev.crashlab.config.CrashLabConfig;
import io.quarkus.oidc.AuthorizationCodeFlow;
import io.smallrye.common.annotation.Blocking;
import io.vertx.core.http.HttpServerRequest;
import jakarta.annotation.security.PermitAll;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestCookie;

/** Sign-in, sign-out, the first-admin setup, the caller's identity and password change. */
@Path("/auth")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class AuthResource {

    @Inject
    AccountService accounts;

    @Inject
    SetupLink setup;

    @Inject
    AuditLog audit;

    @Inject
    SecurityIdentity identity;

    @Inject
    LoginThrottle throttle;

    @Inject
    CrashLabConfig config;

    @Context
    HttpServerRequest request;

    @Context
    UriInfo uri;

    /** Whether the server still waits for its first admin (the UI then offers the setup page). */
    public record State(boolean setupOpen) {}

    public record Login(String username, String password) {}

    public record Setup(String code, String username, String password) {}

    public record PasswordChange(String current, String password) {}

    /**
     * Who is calling.
     *
     * @param name the user (or token:&lt;name&gt;, worker:&lt;name&gt;)
     * @param roles the effective roles
     * @param session whether by a sign-in (a password can be changed) rather than a token
     * @param account whether there is an account behind the caller
     */
    public record Me(String name, Set<String> roles, boolean session, boolean account) {
        static Me of(Caller c) {
            return new Me(c.name(), new TreeSet<>(c.roles()), c.session(), c.userId() != null);
        }
    }

    @GET
    @Path("/state")
    @PermitAll
    @Operation(summary = "Whether the first-admin setup is open (no accounts yet)")
    public State state() {
        return new State(setup.open() && !accounts.hasUsers());
    }

    @POST
    @Path("/setup")
    @PermitAll
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Create the first admin with the one-time code from the start-up link; signs in")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "200", description = "signed in", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = Me.class)))
    public Response setup(Setup body) {
        Setup s = body == null ? new Setup(null, null, null) : body;
        accounts.setupFirstAdmin(s.code(), s.username(), s.password());
        audit.record(s.username().strip(), "user.setup", "user " + s.username().strip(), "first admin created with the setup link");
        return signIn(s.username(), s.password());
    }

    @POST
    @Path("/login")
    @PermitAll
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Sign in with a user name and password; sets the session cookie. Repeated failures for "
            + "one account or from one address are refused for a while (429 with Retry-After)")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "200", description = "signed in", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = Me.class)))
    public Response login(Login body) {
        Login l = body == null ? new Login(null, null) : body;
        String address = request.remoteAddress() == null ? null : request.remoteAddress().hostAddress();
        throttle.check(l.username(), address, Instant.now());
        try {
            Response ok = signIn(l.username(), l.password());
            throttle.succeeded(l.username());
            return ok;
        } catch (DomainException e) {
            if (e.kind() == DomainException.Kind.UNAUTHENTICATED) {
                throttle.failed(l.username(), address, Instant.now());
            }
            throw e;
        }
    }

    private Response signIn(String username, String password) {
        NewSession s = accounts.login(username, password, Instant.now());
        long maxAge = Duration.between(Instant.now(), s.expiresAt()).toSeconds();
        return Response.ok(Me.of(s.caller())).cookie(cookie(s.secret(), (int) maxAge)).build();
    }

    @POST
    @Path("/logout")
    @PermitAll
    @Operation(summary = "Sign out: ends the session and clears its cookie")
    public Response logout(@RestCookie(CrashLabAuthMechanism.COOKIE) String session) {
        accounts.logout(session);
        return Response.noContent().cookie(cookie("", 0)).build();
    }

    private NewCookie cookie(String value, int maxAge) {
        return new NewCookie.Builder(CrashLabAuthMechanism.COOKIE).value(value).path("/").httpOnly(true)
                .secure("https".equalsIgnoreCase(uri.getRequestUri().getScheme()))
                .sameSite(NewCookie.SameSite.LAX).maxAge(maxAge).build();
    }

    /** Whether single sign-on is on, and what its button says. */
    public record Sso(boolean enabled, String label) {}

    @GET
    @Path("/oidc")
    @PermitAll
    @Operation(summary = "Whether single sign-on (OpenID Connect) is on, and the sign-in button's label")
    public Sso sso() {
        return new Sso(config.oidc().enabled(), config.oidc().label());
    }

    @GET
    @Path("/oidc/login")
    @Authenticated
    @AuthorizationCodeFlow
    @Produces(MediaType.WILDCARD)
    @Operation(summary = "Single sign-on: sends the browser to the identity provider and, back from it, signs in "
            + "with the roles mapped from the provider's claim; then on to the UI (404 when single sign-on is off)")
    public Response oidcLogin() {
        if (!(identity.getPrincipal() instanceof JsonWebToken idToken)) {
            throw new DomainException(DomainException.Kind.UNAUTHENTICATED, "bad-sso-login", "Single sign-on failed",
                    "the identity provider's answer carried no ID token");
        }
        Set<String> roles = SsoRoles.map(idToken, config.oidc());
        Object wanted = idToken.getClaim(config.oidc().usernameClaim());
        String name = wanted == null ? null : SsoRoles.text(wanted);
        NewSession s = accounts.oidcLogin(idToken.getSubject(), name, roles, Instant.now());
        audit.record(s.caller().name(), "user.sso-login", "user " + s.caller().name(),
                roles.isEmpty() ? "no roles mapped from claim " + config.oidc().roleClaim() : "roles " + String.join(",", new TreeSet<>(roles)));
        long maxAge = Duration.between(Instant.now(), s.expiresAt()).toSeconds();
        // the provider's session cookie has served its purpose: every later request carries ours
        NewCookie dropOidc = new NewCookie.Builder("q_session").value("").path(OIDC_COOKIE_PATH).maxAge(0).httpOnly(true).build();
        // to the UI's root, as a relative Location (right behind a proxy too; Response.seeOther would resolve
        // "/" against the REST root, /api)
        return Response.status(Response.Status.SEE_OTHER).header("Location", "/")
                .cookie(cookie(s.secret(), (int) maxAge), dropOidc).build();
    }

    /** quarkus.oidc.authentication.cookie-path: the OIDC cookies go only to the sign-in path. */
    static final String OIDC_COOKIE_PATH = "/api/auth/oidc";

    @GET
    @Path("/me")
    @Authenticated
    @Operation(summary = "The caller: name, effective roles, whether signed in by a session")
    public Me me() {
        return Me.of(Callers.of(identity));
    }

    @PUT
    @Path("/password")
    @Authenticated
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Change your own password (needs the current one); your other sessions end")
    public Response changePassword(PasswordChange body, @RestCookie(CrashLabAuthMechanism.COOKIE) String session) {
        Caller c = Callers.of(identity);
        PasswordChange p = body == null ? new PasswordChange(null, null) : body;
        accounts.changePassword(c, p.current(), p.password(), session);
        audit.record(c, "user.password", "user " + c.name(), null);
        return Response.noContent().build();
    }
}
