package dev.crashlab.account;

import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.config.FirstInsert;
import dev.crashlab.domain.DomainException;
import dev.crashlab.domain.DomainException.Kind;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** User accounts, sign-in sessions and the first-admin setup. */
@ApplicationScoped
public class AccountService {

    private static final Pattern USERNAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");
    /**
     * Compared against when the user does not exist, so a wrong name costs as long as a wrong password: made at
     * the configured bcrypt cost (the cost new passwords get), on first use.
     */
    private volatile String dummyHash;

    /** A user as the API shows it (never the hash). */
    public record UserView(long id, String username, Set<String> roles, Instant createdAt, boolean disabled) {
        static UserView of(UserAccount u) {
            return new UserView(u.id, u.username, Roles.read(u.roles), u.createdAt, u.disabled);
        }
    }

    /** A new sign-in: the cookie value (shown once) and when it ends. */
    public record NewSession(String secret, Instant expiresAt, Caller caller) {}

    @Inject
    CrashLabConfig config;

    @Inject
    SetupLink setup;

    @Transactional
    public boolean hasUsers() {
        return UserAccount.count() > 0;
    }

    /** Creates the first admin with the one-time setup code; refused once any account exists. */
    @Transactional
    public UserView setupFirstAdmin(String code, String username, String password) {
        if (UserAccount.count() > 0) {
            throw new DomainException(Kind.CONFLICT, "already-set-up", "Already set up",
                    "this server already has accounts; sign in, or ask an admin for one");
        }
        if (!setup.matches(code)) {
            throw new DomainException(Kind.FORBIDDEN, "bad-setup-code", "Wrong setup link",
                    "the setup link is wrong or used up; open the link the server printed at start-up (also in "
                            + "setup-link.txt in its data folder), or restart the server for a new one");
        }
        UserView admin = create(username, password, Set.of(Roles.ADMIN));
        setup.used();
        return admin;
    }

    @Transactional
    public UserView createUser(String username, String password, Set<String> roles) {
        return create(username, password, Roles.checkPerson(roles));
    }

    private UserView create(String username, String password, Set<String> roles) {
        String name = checkUsername(username);
        Passwords.check(password, name);
        if (UserAccount.count("lower(username) = ?1", name.toLowerCase(java.util.Locale.ROOT)) > 0) {
            throw userExists(name);
        }
        UserAccount u = new UserAccount();
        u.username = name;
        u.passwordHash = Passwords.hash(password, config.auth().bcryptCost());
        u.roles = Roles.format(roles);
        u.createdAt = Instant.now();
        try {
            u.persistAndFlush(); // an identity id: the insert runs here
        } catch (PersistenceException e) {
            // the same name made meanwhile, by another admin's request here or on another server: a 409, not a 500
            if (FirstInsert.isDuplicate(e)) {
                throw userExists(name);
            }
            throw e;
        }
        return UserView.of(u);
    }

    private static DomainException userExists(String name) {
        return new DomainException(Kind.CONFLICT, "user-exists", "User exists", "there is already a user named `" + name + "`");
    }

    private static String checkUsername(String username) {
        String name = username == null ? "" : username.strip();
        if (!USERNAME.matcher(name).matches() || name.startsWith("token:")) {
            throw new DomainException(Kind.INVALID, "bad-username", "Bad user name",
                    "a user name is 1 to 64 letters, digits, dots, dashes, underscores or @, starting with a letter or digit");
        }
        return name;
    }

    @Transactional
    public List<UserView> users() {
        return UserAccount.<UserAccount>listAll(Sort.ascending("username")).stream().map(UserView::of).toList();
    }

    /** Changes a user's roles and/or disabled flag; an admin cannot take admin away from the last enabled admin. */
    @Transactional
    public UserView update(long id, Set<String> roles, Boolean disabled, String newPassword) {
        UserAccount u = find(id);
        Set<String> newRoles = roles == null ? Roles.read(u.roles) : Roles.checkPerson(roles);
        boolean newDisabled = disabled == null ? u.disabled : disabled;
        if (Roles.read(u.roles).contains(Roles.ADMIN) && !u.disabled && (!newRoles.contains(Roles.ADMIN) || newDisabled)
                && enabledAdmins() <= 1) {
            throw new DomainException(Kind.CONFLICT, "last-admin", "Last admin",
                    "`" + u.username + "` is the only enabled admin; make someone else admin first");
        }
        u.roles = Roles.format(newRoles);
        u.disabled = newDisabled;
        if (newPassword != null) {
            Passwords.check(newPassword, u.username);
            u.passwordHash = Passwords.hash(newPassword, config.auth().bcryptCost());
        }
        if (newDisabled || newPassword != null) {
            LoginSession.delete("userId", u.id);
        }
        // tokens never hold more than their owner: drop roles the owner lost
        for (ApiToken t : ApiToken.<ApiToken>list("userId", u.id)) {
            Set<String> kept = new java.util.TreeSet<>(Roles.read(t.roles));
            kept.retainAll(newRoles.contains(Roles.ADMIN) ? Set.copyOf(Roles.PERSON) : newRoles);
            if (kept.isEmpty() && t.revokedAt == null) {
                t.revokedAt = Instant.now();
            } else if (!kept.isEmpty()) {
                t.roles = Roles.format(kept);
            }
        }
        return UserView.of(u);
    }

    @Transactional
    public UserView delete(long id) {
        UserAccount u = find(id);
        if (Roles.read(u.roles).contains(Roles.ADMIN) && !u.disabled && enabledAdmins() <= 1) {
            throw new DomainException(Kind.CONFLICT, "last-admin", "Last admin",
                    "`" + u.username + "` is the only enabled admin; make someone else admin first");
        }
        UserView view = UserView.of(u);
        LoginSession.delete("userId", u.id);
        ApiToken.delete("userId", u.id);
        u.delete();
        return view;
    }

    private long enabledAdmins() {
        return UserAccount.<UserAccount>list("disabled", false).stream()
                .filter(a -> Roles.read(a.roles).contains(Roles.ADMIN)).count();
    }

    private static UserAccount find(long id) {
        UserAccount u = UserAccount.findById(id);
        if (u == null) {
            throw DomainException.notFound("no user " + id);
        }
        return u;
    }

    /** Checks a user name and password; a new session on success. Unknown name and wrong password read alike. */
    @Transactional
    public NewSession login(String username, String password, Instant now) {
        UserAccount u = username == null ? null
                : UserAccount.<UserAccount>find("lower(username) = ?1", username.strip().toLowerCase(java.util.Locale.ROOT))
                        .firstResult();
        boolean ok = Passwords.matches(password == null ? "" : password, u == null ? dummyHash() : u.passwordHash);
        if (u == null || !ok) {
            throw new DomainException(Kind.UNAUTHENTICATED, "bad-login", "Sign-in failed", "wrong user name or password");
        }
        if (u.disabled) {
            // only a caller who knows the password learns the account exists and is disabled
            throw new DomainException(Kind.FORBIDDEN, "account-disabled", "Account disabled", disabledMessage(u.username));
        }
        return openSession(u, now);
    }

    /** What a disabled account's owner reads at sign-in: that it is disabled, and which admins can enable it. */
    private String disabledMessage(String username) {
        List<String> admins = UserAccount.<UserAccount>list("disabled", false).stream()
                .filter(a -> Roles.read(a.roles).contains(Roles.ADMIN)).map(a -> a.username).sorted().limit(5).toList();
        return "Your account " + username + " is disabled, so it cannot sign in. Ask "
                + (admins.isEmpty() ? "an administrator of this CrashLab server" : "an administrator of this CrashLab server ("
                        + String.join(", ", admins) + ")") + " to enable it again.";
    }

    /** The hash an unknown user name's password is checked against, at the configured cost. */
    String dummyHash() {
        String h = dummyHash;
        int cost = config.auth().bcryptCost();
        if (h == null || Passwords.cost(h) != cost) {
            h = Passwords.hash(Secrets.generate("dummy_"), cost);
            dummyHash = h;
        }
        return h;
    }

    /**
     * Signs in a user the OpenID Connect provider vouched for: the account with this {@code subject}, made on
     * the first sign-in (named after {@code wantedName}, with a suffix when a local account has that name), gets
     * exactly {@code roles} (mapped from the provider's claim at every sign-in, so the provider stays the source).
     * It has no password: it cannot sign in with the form. A disabled account is refused.
     */
    @Transactional
    public NewSession oidcLogin(String subject, String wantedName, Set<String> roles, Instant now) {
        if (subject == null || subject.isBlank() || subject.length() > 255) {
            throw new DomainException(Kind.UNAUTHENTICATED, "bad-sso-login", "Single sign-on failed",
                    "the identity provider sent no usable subject (`sub`)");
        }
        Set<String> granted = roles.isEmpty() ? Set.of() : Roles.checkPerson(roles);
        UserAccount u = UserAccount.<UserAccount>find("oidcSubject", subject).firstResult();
        if (u == null) {
            u = firstSignIn(subject, wantedName, granted, now);
        } else if (u.disabled) {
            throw new DomainException(Kind.FORBIDDEN, "account-disabled", "Account disabled", disabledMessage(u.username));
        }
        u.roles = Roles.format(granted);
        return openSession(u, now);
    }

    /**
     * The account of a subject's first sign-in, made in a transaction of its own ({@link FirstInsert}): when two first
     * sign-ins of one subject race (two tabs, two servers), the loser's insert meets the unique subject and it takes
     * the winner's account; when another account took the free name meanwhile, the name is chosen again. Read back in
     * the caller's transaction.
     */
    private UserAccount firstSignIn(String subject, String wantedName, Set<String> granted, Instant now) {
        // no one knows this password: the account signs in only through the provider
        String passwordHash = Passwords.hash(Secrets.generate("sso_"), config.auth().bcryptCost());
        for (int attempt = 1; ; attempt++) {
            String name = freeName(wantedName, subject);
            boolean made = FirstInsert.ifAbsent(() -> {
                UserAccount u = new UserAccount();
                u.username = name;
                u.passwordHash = passwordHash;
                u.roles = Roles.format(granted);
                u.createdAt = now;
                u.oidcSubject = subject;
                u.persistAndFlush();
            });
            UserAccount u = UserAccount.<UserAccount>find("oidcSubject", subject).firstResult();
            if (u != null) {
                return u;
            }
            if (made || attempt == 3) {
                throw new IllegalStateException("the account of single sign-on subject " + subject
                        + (made ? " was made, yet is not there" : " was refused three times on a user name taken meanwhile"));
            }
        }
    }

    /** A new session for {@code u}: only its secret's hash is stored; the secret goes back once, for the cookie. */
    private NewSession openSession(UserAccount u, Instant now) {
        String secret = Secrets.generate("cls_");
        LoginSession s = new LoginSession();
        s.idHash = Secrets.sha256(secret);
        s.userId = u.id;
        s.createdAt = now;
        s.expiresAt = now.plus(config.auth().sessionLifetime());
        s.persist();
        return new NewSession(secret, s.expiresAt, caller(u));
    }

    /** A user name from the provider's, made valid and unused (never another account's). */
    private static String freeName(String wanted, String subject) {
        String base = (wanted == null || wanted.isBlank() ? subject : wanted).strip()
                .replaceAll("[^A-Za-z0-9._@-]", "-").replaceAll("^[^A-Za-z0-9]+", "");
        if (base.isEmpty() || base.startsWith("token:")) {
            base = "sso-user";
        }
        base = base.length() > 56 ? base.substring(0, 56) : base;
        String name = base;
        for (int n = 2; UserAccount.count("lower(username) = ?1", name.toLowerCase(java.util.Locale.ROOT)) > 0; n++) {
            name = base + "-" + n;
        }
        return name;
    }

    /** The caller behind a session cookie, if the session exists, has not expired and its user is enabled. */
    @Transactional
    public Optional<Caller> session(String secret, Instant now) {
        if (secret == null || secret.isBlank()) {
            return Optional.empty();
        }
        LoginSession s = LoginSession.findById(Secrets.sha256(secret));
        if (s == null) {
            return Optional.empty();
        }
        if (!s.expiresAt.isAfter(now)) {
            s.delete();
            return Optional.empty();
        }
        UserAccount u = UserAccount.findById(s.userId);
        return u == null || u.disabled ? Optional.empty() : Optional.of(caller(u));
    }

    @Transactional
    public void logout(String secret) {
        if (secret != null && !secret.isBlank()) {
            LoginSession.deleteById(Secrets.sha256(secret));
        }
    }

    /** Changes the caller's own password after checking the current one; other sessions of the user end. */
    @Transactional
    public void changePassword(Caller who, String current, String replacement, String keepSession) {
        if (who.userId() == null) {
            throw new DomainException(Kind.CONFLICT, "no-account", "No account",
                    "this token belongs to no account, so there is no password to change");
        }
        UserAccount u = find(who.userId());
        if (!Passwords.matches(current == null ? "" : current, u.passwordHash)) {
            throw new DomainException(Kind.FORBIDDEN, "wrong-password", "Wrong password", "the current password is wrong");
        }
        Passwords.check(replacement, u.username);
        u.passwordHash = Passwords.hash(replacement, config.auth().bcryptCost());
        String keep = keepSession == null ? "" : Secrets.sha256(keepSession);
        LoginSession.delete("userId = ?1 and idHash <> ?2", u.id, keep);
    }

    static Caller caller(UserAccount u) {
        return new Caller(u.username, u.id, Roles.effective(Roles.read(u.roles)), null, null);
    }

    /** The account behind {@code id}, for tokens that check their owner. */
    Optional<UserAccount> account(Long id) {
        return id == null ? Optional.empty() : Optional.ofNullable(UserAccount.findById(id));
    }
}
