package dev.crashlab.web;

import dev.crashlab.account.AuditLog;
import dev.crashlab.account.Caller;
import dev.crashlab.account.Roles;
import dev.crashlab.account.TokenService;
import dev.crashlab.account.TokenService.NewToken;
import dev.crashlab.account.TokenService.TokenView;
import dev.crashlab.web.auth.Callers;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

/** Personal API tokens: make (value shown once), list, revoke. */
@Path("/tokens")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class TokenResource {

    @Inject
    TokenService tokens;

    @Inject
    AuditLog audit;

    @Inject
    SecurityIdentity identity;

    /**
     * A token to make.
     *
     * @param name what uses it
     * @param roles a subset of your roles (default: all of them)
     * @param days how long it lasts (default 90)
     */
    public record NewTokenRequest(String name, Set<String> roles, Integer days) {}

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Your API tokens (admins: all=true lists every personal and provisioned token)")
    public List<TokenView> list(@RestQuery @DefaultValue("false") boolean all) {
        return tokens.list(Callers.of(identity), all);
    }

    @POST
    @RolesAllowed(Roles.VIEWER)
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Make a personal API token with a subset of your roles; the value is in this reply only")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "201", description = "the token, its value shown once", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = NewToken.class)))
    public Response create(NewTokenRequest body) {
        Caller c = Callers.of(identity);
        NewTokenRequest r = body == null ? new NewTokenRequest(null, null, null) : body;
        NewToken t = tokens.createPersonal(c, r.name(), r.roles(), r.days(), Instant.now());
        audit.record(c, "token.create", "token " + t.token().id(), t.token().name() + " " + t.token().roles());
        return Response.created(URI.create("/api/tokens/" + t.token().id())).entity(t).build();
    }

    @DELETE
    @Path("/{id}")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Revoke one of your tokens (admins: any token, worker tokens included)")
    public TokenView revoke(@RestPath long id) {
        Caller c = Callers.of(identity);
        TokenView t = tokens.revoke(c, id, Instant.now());
        audit.record(c, "token.revoke", "token " + id, t.name());
        return t;
    }
}
