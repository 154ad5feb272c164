package dev.crashlab.web;

import dev.crashlab.account.AccountService;
import dev.crashlab.account.AccountService.UserView;
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
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
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

/** Admin only: user accounts and worker tokens. */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
@RolesAllowed(Roles.ADMIN)
public class AdminResource {

    @Inject
    AccountService accounts;

    @Inject
    TokenService tokens;

    @Inject
    AuditLog audit;

    @Inject
    SecurityIdentity identity;

    public record NewUser(String username, String password, Set<String> roles) {}

    /** A change to a user; null fields stay as they are. */
    public record UserChange(Set<String> roles, Boolean disabled, String password) {}

    public record NewWorkerToken(String worker, Integer days) {}

    @GET
    @Path("/users")
    @Operation(summary = "List user accounts")
    public List<UserView> users() {
        return accounts.users();
    }

    @POST
    @Path("/users")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Create a user with a password and roles")
    public Response createUser(NewUser body) {
        NewUser u = body == null ? new NewUser(null, null, null) : body;
        UserView created = accounts.createUser(u.username(), u.password(), u.roles());
        audit.record(Callers.of(identity), "user.create", "user " + created.username(), "roles " + created.roles());
        return Response.created(URI.create("/api/admin/users/" + created.id())).entity(created).build();
    }

    @PUT
    @Path("/users/{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Change a user's roles, disable or enable them, or set a new password")
    public UserView updateUser(@RestPath long id, UserChange body) {
        UserChange c = body == null ? new UserChange(null, null, null) : body;
        UserView u = accounts.update(id, c.roles(), c.disabled(), c.password());
        audit.record(Callers.of(identity), "user.update", "user " + u.username(),
                "roles " + u.roles() + (u.disabled() ? ", disabled" : "") + (c.password() != null ? ", password set" : ""));
        return u;
    }

    @DELETE
    @Path("/users/{id}")
    @Operation(summary = "Delete a user, their sessions and tokens (their bundles stay)")
    public Response deleteUser(@RestPath long id) {
        UserView u = accounts.delete(id);
        audit.record(Callers.of(identity), "user.delete", "user " + u.username(), null);
        return Response.noContent().build();
    }

    @GET
    @Path("/worker-tokens")
    @Operation(summary = "List worker tokens (each bound to one worker name)")
    public List<TokenView> workerTokens() {
        return tokens.workers();
    }

    @POST
    @Path("/worker-tokens")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Make a token for one worker: it may claim, heartbeat and complete only as that name; value shown once")
    public Response createWorkerToken(NewWorkerToken body) {
        Caller c = Callers.of(identity);
        NewWorkerToken w = body == null ? new NewWorkerToken(null, null) : body;
        NewToken t = tokens.createWorker(c, w.worker(), w.days(), Instant.now());
        audit.record(c, "token.create", "token " + t.token().id(), "worker " + t.token().workerName());
        return Response.created(URI.create("/api/tokens/" + t.token().id())).entity(t).build();
    }
}
