package dev.crashlab.account;

import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.config.FirstInsert;
import dev.crashlab.domain.DomainException;
import dev.crashlab.domain.DomainException.Kind;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * API tokens: personal ones (a subset of the owner's roles and of the calling token's, with an expiry), worker tokens (bound to one worker
 * name, made by an admin) and the token {@code CRASHLAB_ADMIN_TOKEN} provisions. Values are shown once and
 * kept as SHA-256; a token is refused once expired or revoked.
 */
@ApplicationScoped
public class TokenService {

    /** The name of the token start-up provisions from CRASHLAB_ADMIN_TOKEN. */
    public static final String ADMIN_TOKEN_NAME = "CRASHLAB_ADMIN_TOKEN";
    private static final Pattern WORKER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    /** last-used times are written at most this often per token (not one write per request). */
    private static final Duration LAST_USED_RESOLUTION = Duration.ofMinutes(1);

    /** A token as the API lists it (never its value). */
    public record TokenView(long id, String name, String owner, Set<String> roles, String workerName, Instant createdAt,
            Instant expiresAt, Instant revokedAt, Instant lastUsedAt, String createdBy) {}

    /** A new token: its value, shown once. */
    public record NewToken(TokenView token, String secret) {}

    @Inject
    CrashLabConfig config;

    @Inject
    AccountService accounts;

    /** Makes a personal token for {@code owner} with {@code roles} (default: all of the owner's granted roles). */
    @Transactional
    public NewToken createPersonal(Caller owner, String name, Set<String> roles, Integer days, Instant now) {
        if (owner.userId() == null) {
            throw new DomainException(Kind.CONFLICT, "no-account", "No account",
                    "personal tokens belong to an account; sign in as a user to make one");
        }
        UserAccount account = accounts.account(owner.userId()).orElseThrow(() -> DomainException.notFound("no user " + owner.userId()));
        // the ceiling is what the account holds AND what the calling credential carries: a narrow token never
        // mints a wider one (a session carries all of the account's roles)
        Set<String> granted = Roles.effective(Roles.read(account.roles));
        granted.retainAll(owner.roles());
        granted.remove(Roles.WORKER);
        Set<String> wanted;
        if (roles == null || roles.isEmpty()) {
            wanted = new TreeSet<>(Roles.read(account.roles));
            wanted.retainAll(granted);
            if (wanted.isEmpty()) {
                wanted = new TreeSet<>(granted); // an admin's viewer-only token: by default, a viewer-only token
            }
        } else {
            wanted = Roles.checkPerson(roles);
        }
        for (String r : wanted) {
            if (!granted.contains(r)) {
                throw new DomainException(Kind.FORBIDDEN, "role-not-held", "Role not held",
                        "a token can only carry roles you hold and the credential you called with carries; `" + r
                                + "` is not among them");
            }
        }
        Duration max = config.auth().maxTokenLifetime();
        Duration life = days == null ? config.auth().tokenLifetime() : Duration.ofDays(days);
        if (days != null && (days < 1 || life.compareTo(max) > 0)) {
            throw new DomainException(Kind.INVALID, "bad-expiry", "Bad expiry",
                    "a token lasts between 1 and " + max.toDays() + " days");
        }
        return token(checkName(name), owner.userId(), wanted, null, owner.name(), now, now.plus(life));
    }

    /** Makes a worker token: role worker, bound to {@code workerName}; no expiry unless {@code days} is given. */
    @Transactional
    public NewToken createWorker(Caller admin, String workerName, Integer days, Instant now) {
        String worker = workerName == null ? "" : workerName.strip();
        if (!WORKER_NAME.matcher(worker).matches()) {
            throw new DomainException(Kind.INVALID, "bad-worker-name", "Bad worker name",
                    "a worker name is 1 to 128 letters, digits, dots, dashes or underscores (the name `bin/crashlab worker --name` uses)");
        }
        if (days != null && days < 1) {
            throw new DomainException(Kind.INVALID, "bad-expiry", "Bad expiry", "a token lasts at least 1 day");
        }
        return token("worker " + worker, null, Set.of(Roles.WORKER), worker, admin.name(), now,
                days == null ? null : now.plus(Duration.ofDays(days)));
    }

    private static String checkName(String name) {
        String n = name == null ? "" : name.strip();
        if (n.isEmpty() || n.length() > 128) {
            throw new DomainException(Kind.INVALID, "bad-token-name", "Bad token name",
                    "give the token a name of 1 to 128 characters saying what uses it");
        }
        return n;
    }

    private NewToken token(String name, Long userId, Set<String> roles, String worker, String by, Instant now, Instant expires) {
        String secret = Secrets.generate("clt_");
        ApiToken t = new ApiToken();
        t.tokenHash = Secrets.sha256(secret);
        t.name = name;
        t.userId = userId;
        t.roles = Roles.format(roles);
        t.workerName = worker;
        t.createdBy = by;
        t.createdAt = now;
        t.expiresAt = expires;
        t.persist();
        return new NewToken(view(t), secret);
    }

    /**
     * Makes sure a token with exactly this value exists, with the admin role, not expired nor revoked (a restart resets
     * a row someone changed).
     *
     * <p>NOTE: two servers starting together on a new database both find no row; the insert runs in a transaction of
     * its own ({@link FirstInsert}), and the server whose insert the unique hash refuses resets the winner's row instead.
     */
    @Transactional
    public void ensureAdminToken(String value) {
        String hash = Secrets.sha256(value.strip());
        Instant now = Instant.now();
        if (ApiToken.count("tokenHash", hash) == 0 && FirstInsert.ifAbsent(() -> provisioned(new ApiToken(), hash, now).persistAndFlush())) {
            return;
        }
        ApiToken t = ApiToken.<ApiToken>find("tokenHash", hash).firstResult();
        if (t == null) {
            throw new IllegalStateException("the provisioned admin token's row was refused as a duplicate, yet none is there");
        }
        provisioned(t, hash, now);
    }

    private static ApiToken provisioned(ApiToken t, String hash, Instant now) {
        if (t.tokenHash == null) {
            t.tokenHash = hash;
            t.createdAt = now;
        }
        t.name = ADMIN_TOKEN_NAME;
        t.userId = null;
        t.workerName = null;
        t.roles = Roles.ADMIN;
        t.createdBy = "start-up";
        t.expiresAt = null;
        t.revokedAt = null;
        return t;
    }

    /** The caller a bearer token stands for; empty if unknown, expired, revoked, or its owner is disabled. */
    @Transactional
    public Optional<Caller> authenticate(String secret, Instant now) {
        if (secret == null || secret.isBlank()) {
            return Optional.empty();
        }
        ApiToken t = ApiToken.<ApiToken>find("tokenHash", Secrets.sha256(secret.strip())).firstResult();
        if (t == null || t.revokedAt != null || (t.expiresAt != null && !t.expiresAt.isAfter(now))) {
            return Optional.empty();
        }
        String name;
        Set<String> roles = Roles.read(t.roles);
        if (t.userId != null) {
            UserAccount owner = accounts.account(t.userId).orElse(null);
            if (owner == null || owner.disabled) {
                return Optional.empty();
            }
            name = owner.username;
            // never more than the owner holds now
            Set<String> held = Roles.effective(Roles.read(owner.roles));
            roles = new TreeSet<>(roles);
            roles.retainAll(held);
        } else {
            name = t.workerName != null ? "worker:" + t.workerName : "token:" + t.name;
        }
        if (t.lastUsedAt == null || t.lastUsedAt.plus(LAST_USED_RESOLUTION).isBefore(now)) {
            t.lastUsedAt = now;
        }
        Set<String> effective = t.workerName != null ? Set.of(Roles.WORKER) : Roles.effective(roles);
        return Optional.of(new Caller(name, t.userId, effective, t.id, t.workerName));
    }

    /** The caller's own tokens; for admins with {@code all}, every personal and provisioned token too. */
    @Transactional
    public List<TokenView> list(Caller who, boolean all) {
        List<ApiToken> found = all && who.has(Roles.ADMIN)
                ? ApiToken.<ApiToken>list("workerName is null", Sort.descending("createdAt", "id"))
                : ApiToken.<ApiToken>list("userId", Sort.descending("createdAt", "id"), who.userId() == null ? -1L : who.userId());
        return found.stream().map(this::view).toList();
    }

    /** Every token: personal, provisioned and worker ones, revoked and expired ones too, newest first. */
    @Transactional
    public List<TokenView> all() {
        return ApiToken.<ApiToken>listAll(Sort.descending("createdAt", "id")).stream().map(this::view).toList();
    }

    @Transactional
    public List<TokenView> workers() {
        return ApiToken.<ApiToken>list("workerName is not null", Sort.descending("createdAt", "id")).stream().map(this::view).toList();
    }

    /** Revokes a token: its owner, or an admin, may. */
    @Transactional
    public TokenView revoke(Caller who, long id, Instant now) {
        ApiToken t = ApiToken.findById(id);
        boolean mine = t != null && t.userId != null && t.userId.equals(who.userId());
        if (t == null || (!mine && !who.has(Roles.ADMIN))) {
            throw DomainException.notFound("no token " + id + " of yours");
        }
        if (t.revokedAt == null) {
            t.revokedAt = now;
        }
        return view(t);
    }

    private TokenView view(ApiToken t) {
        String owner = t.userId == null ? null : accounts.account(t.userId).map(u -> u.username).orElse(null);
        return new TokenView(t.id, t.name, owner, Roles.read(t.roles), t.workerName, t.createdAt, t.expiresAt,
                t.revokedAt, t.lastUsedAt, t.createdBy);
    }
}
