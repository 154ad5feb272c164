package dev.crashlab.web;

import dev.crashlab.account.AccountService;
import dev.crashlab.account.AccountService.UserView;
import dev.crashlab.account.AuditLog;
import dev.crashlab.account.Caller;
import dev.crashlab.account.Roles;
import dev.crashlab.account.TokenService;
import dev.crashlab.account.TokenService.NewToken;
import dev.crashlab.account.TokenService.TokenView;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.repro.jobs.JobViews.WorkerView;
import dev.crashlab.repro.jobs.LocalWorker;
import dev.crashlab.repro.jobs.ReproJobService;
import dev.crashlab.retention.RetentionService;
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

/** Admin only: user accounts, API and worker tokens, retention, the lab's workers. */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
@RolesAllowed(Roles.ADMIN)
public class AdminResource {

    @Inject
    dev.crashlab.config.DbClock clock;
    @Inject
    AccountService accounts;

    @Inject
    TokenService tokens;

    @Inject
    AuditLog audit;

    @Inject
    SecurityIdentity identity;

    @Inject
    RetentionService retention;

    @Inject
    ReproJobService jobs;

    @Inject
    LocalWorker localWorker;

    @Inject
    CrashLabConfig config;

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
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "201", description = "the account", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = UserView.class)))
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
    @Path("/tokens")
    @Operation(summary = "List every API token (personal, provisioned and worker; revoked and expired ones too), newest first;"
            + " revoke one with DELETE /api/tokens/{id}")
    public List<TokenView> allTokens() {
        return tokens.all();
    }

    @GET
    @Path("/retention")
    @Operation(summary = "Retention as it stands: the settings in force, what each uploader holds against the quota, and the"
            + " bundles a sweep run now would delete")
    public RetentionService.Overview retention() {
        return retention.overview(clock.now());
    }

    /**
     * The server's own worker as its supervisor sees it.
     *
     * @param enabled whether the server runs it ({@code crashlab.lab.local-worker})
     * @param alive whether its thread runs now (false between a death and its restart)
     * @param backend the backend it replays on
     * @param restarts how often it died and was started again since the server started
     * @param lastDeathAt when it last died, or null
     * @param lastDeath why it last died, or null
     * @param lastSeen when it last asked for a job (null before its first claim)
     * @param currentJob the job it runs now, or null
     */
    public record LocalWorkerView(boolean enabled, boolean alive, String backend, int restarts, Instant lastDeathAt,
            String lastDeath, Instant lastSeen, Long currentJob) {}

    /**
     * The lab as an admin sees it.
     *
     * @param local the server's own worker
     * @param workers every worker heard from (the local one included once it has claimed), most recent first
     */
    public record Workers(LocalWorkerView local, List<WorkerView> workers) {}

    @GET
    @Path("/workers")
    @Operation(summary = "The server's own worker (state, restarts) and every worker heard from")
    public Workers workers() {
        List<WorkerView> seen = jobs.workers(clock.now());
        LocalWorker.State s = localWorker.state();
        WorkerView me = seen.stream().filter(w -> w.name().equals(LocalWorker.NAME)).findFirst().orElse(null);
        return new Workers(new LocalWorkerView(s.enabled(), s.alive(), config.lab().localBackend(), s.deaths(), s.lastDeathAt(),
                s.lastDeath(), me == null ? null : me.lastSeen(), me == null ? null : me.currentJob()), seen);
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
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "201", description = "the token, its value shown once", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = NewToken.class)))
    public Response createWorkerToken(NewWorkerToken body) {
        Caller c = Callers.of(identity);
        NewWorkerToken w = body == null ? new NewWorkerToken(null, null) : body;
        NewToken t = tokens.createWorker(c, w.worker(), w.days(), Instant.now());
        audit.record(c, "token.create", "token " + t.token().id(), "worker " + t.token().workerName());
        return Response.created(URI.create("/api/tokens/" + t.token().id())).entity(t).build();
    }
}
