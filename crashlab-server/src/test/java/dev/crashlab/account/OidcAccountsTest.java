package dev.crashlab.account;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crashlab.domain.DomainException;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The accounts single sign-on makes and finds, on the database itself (OidcLoginBrowserTest signs in through a real
 * provider in Chromium, on PostgreSQL only): the first sign-in of a subject makes its account, later ones find it by
 * subject and replace its roles, a name a local account holds gets a suffix, and a disabled account is refused.
 */
@QuarkusTest
@Tag("persistence")
class OidcAccountsTest {

    @Inject
    AccountService accounts;

    @Test
    void aSubjectsAccountIsMadeOnceFoundBySubjectAndTakesTheMappedRoles() {
        String name = "sso-" + UUID.randomUUID().toString().substring(0, 8);
        String subject = "subject-" + name;
        Instant now = Instant.now();
        AccountService.NewSession first = accounts.oidcLogin(subject, name, Set.of("triager"), now);
        assertThat(first.caller().name()).isEqualTo(name);
        assertThat(first.caller().roles()).contains("triager");
        assertThat(accounts.session(first.secret(), now)).hasValueSatisfying(c -> assertThat(c.name()).isEqualTo(name));

        // the same subject under another name: the same account, with the roles of this sign-in only
        AccountService.NewSession again = accounts.oidcLogin(subject, name + "-renamed", Set.of("lab"), now);
        assertThat(again.caller().userId()).isEqualTo(first.caller().userId());
        assertThat(again.caller().name()).isEqualTo(name);
        assertThat(again.caller().roles()).contains("lab").doesNotContain("triager");
        assertThat(accounts.users()).filteredOn(u -> u.username().startsWith(name)).hasSize(1);
    }

    @Test
    void aLocalAccountsNameGetsASuffixAndADisabledAccountIsRefused() {
        String name = "taken-" + UUID.randomUUID().toString().substring(0, 8);
        accounts.createUser(name, "a-long-password", Set.of("viewer"));
        Instant now = Instant.now();
        AccountService.NewSession s = accounts.oidcLogin("subject-" + name, name.toUpperCase(java.util.Locale.ROOT), Set.of(), now);
        assertThat(s.caller().name()).isEqualTo(name.toUpperCase(java.util.Locale.ROOT) + "-2");
        assertThat(s.caller().roles()).isEmpty();

        accounts.update(s.caller().userId(), null, true, null);
        assertThatThrownBy(() -> accounts.oidcLogin("subject-" + name, name, Set.of(), now))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.slug()).isEqualTo("account-disabled"));
    }
}
