package dev.crashlab.account;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crashlab.domain.DomainException;
import dev.crashlab.testing.RivalTransaction;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Rows that two servers on one database (or two requests) make when they find them missing: the admin token
 * {@code CRASHLAB_ADMIN_TOKEN} provisions at start-up, an account an admin creates, an account made at a first single
 * sign-on. In each test a {@link RivalTransaction} plays the other server: it writes the same key and holds it
 * uncommitted until the call under test, having found nothing, waits on it, then commits. Before the fix each of these
 * calls failed on the unique key (the server did not start; a 500).
 */
@QuarkusTest
@Tag("persistence")
class AccountRacesTest {

    @Inject
    TokenService tokens;

    @Inject
    AccountService accounts;

    @Inject
    DataSource data;

    final String run = UUID.randomUUID().toString().substring(0, 8);

    @Test
    void twoServersStartingWithOneAdminTokenOnANewDatabaseBothStartAndTheRowIsReset() throws Exception {
        String value = "clt_race_" + run;
        String hash = Secrets.sha256(value);
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        try {
            try (RivalTransaction rival = RivalTransaction.open(data)) {
                // the other server's row, here with roles and an expiry that start-up must reset, as on a restart
                rival.run("insert into api_token (token_hash, name, roles, created_by, created_at, expires_at)"
                        + " values (?, ?, ?, ?, ?, ?)", hash, "rival-" + run, Roles.VIEWER, "rival", now, now.plus(1, ChronoUnit.DAYS));
                rival.race(() -> {
                    tokens.ensureAdminToken(value);
                    return null;
                });
            }
            ApiToken t = QuarkusTransaction.requiringNew().call(() -> {
                assertThat(ApiToken.count("tokenHash", hash)).isEqualTo(1);
                return ApiToken.<ApiToken>find("tokenHash", hash).firstResult();
            });
            assertThat(t.name).isEqualTo(TokenService.ADMIN_TOKEN_NAME);
            assertThat(t.roles).isEqualTo(Roles.ADMIN);
            assertThat(t.createdBy).isEqualTo("start-up");
            assertThat(t.expiresAt).isNull();
            assertThat(t.revokedAt).isNull();
            assertThat(tokens.authenticate(value, Instant.now())).hasValueSatisfying(c -> assertThat(c.has(Roles.ADMIN)).isTrue());
        } finally {
            // one provisioned admin token is what the other tests of this database expect
            QuarkusTransaction.requiringNew().run(() -> ApiToken.delete("tokenHash", hash));
        }
    }

    @Test
    void anAccountCreatedMeanwhileUnderTheSameNameIsAConflictNotAFailure() throws Exception {
        String name = "race-" + run;
        try (RivalTransaction rival = RivalTransaction.open(data)) {
            rival.run("insert into app_user (username, password_hash, roles, created_at, disabled) values (?, ?, ?, ?, false)",
                    name, "x", Roles.VIEWER, Instant.now());
            assertThatThrownBy(() -> rival.race(() -> accounts.createUser(name, "a-long-password", Set.of("viewer"))))
                    .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.slug()).isEqualTo("user-exists"));
        }
        assertThat(accounts.users()).filteredOn(u -> u.username().equals(name)).hasSize(1);
    }

    @Test
    void twoFirstSignInsOfOneSubjectShareOneAccount() throws Exception {
        String name = "sso-race-" + run;
        String subject = "subject-" + name;
        Instant now = Instant.now();
        long rivalsId;
        AccountService.NewSession s;
        try (RivalTransaction rival = RivalTransaction.open(data)) {
            rival.run("insert into app_user (username, password_hash, roles, created_at, disabled, oidc_subject)"
                    + " values (?, ?, ?, ?, false, ?)", name, "x", Roles.VIEWER, now, subject);
            s = rival.race(() -> accounts.oidcLogin(subject, name, Set.of("triager"), now));
        }
        rivalsId = QuarkusTransaction.requiringNew().call(() -> UserAccount.<UserAccount>find("oidcSubject", subject).firstResult().id);
        assertThat(s.caller().userId()).as("the account the other sign-in made").isEqualTo(rivalsId);
        assertThat(s.caller().name()).isEqualTo(name);
        assertThat(s.caller().roles()).contains("triager");
        assertThat(accounts.session(s.secret(), now)).hasValueSatisfying(c -> assertThat(c.userId()).isEqualTo(rivalsId));
        assertThat(accounts.users()).filteredOn(u -> u.username().startsWith(name)).hasSize(1);
    }

    @Test
    void aFirstSignInWhoseNameAnotherAccountTookMeanwhileGetsASuffix() throws Exception {
        String name = "sso-name-" + run;
        Instant now = Instant.now();
        AccountService.NewSession s;
        try (RivalTransaction rival = RivalTransaction.open(data)) {
            // another person's first sign-in (another subject) under the same name, at the same moment
            rival.run("insert into app_user (username, password_hash, roles, created_at, disabled, oidc_subject)"
                    + " values (?, ?, ?, ?, false, ?)", name, "x", Roles.VIEWER, now, "other-subject-" + name);
            s = rival.race(() -> accounts.oidcLogin("subject-" + name, name, Set.of(), now));
        }
        assertThat(s.caller().name()).isEqualTo(name + "-2");
        assertThat(accounts.users()).filteredOn(u -> u.username().startsWith(name)).extracting(u -> u.username())
                .containsExactlyInAnyOrder(name, name + "-2");
    }
}
