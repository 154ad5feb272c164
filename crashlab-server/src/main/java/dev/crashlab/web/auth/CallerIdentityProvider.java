package dev.crashlab.web.auth;

import dev.crashlab.account.AccountService;
import dev.crashlab.account.Caller;
import dev.crashlab.account.TokenService;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Optional;

/** Looks the credential up (a blocking database read) and builds the identity with the caller's roles. */
@ApplicationScoped
public class CallerIdentityProvider implements IdentityProvider<CallerCredential> {

    /** The identity attribute holding the {@link Caller}. */
    public static final String CALLER = "crashlab.caller";

    @Inject
    TokenService tokens;

    @Inject
    AccountService accounts;

    @Override
    public Class<CallerCredential> getRequestType() {
        return CallerCredential.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(CallerCredential request, AuthenticationRequestContext context) {
        return context.runBlocking(() -> {
            Instant now = Instant.now();
            Optional<Caller> caller = request.kind == CallerCredential.Kind.TOKEN
                    ? tokens.authenticate(request.secret, now)
                    : accounts.session(request.secret, now);
            Caller c = caller.orElseThrow(AuthenticationFailedException::new);
            return QuarkusSecurityIdentity.builder()
                    .setPrincipal(new QuarkusPrincipal(c.name()))
                    .addRoles(c.roles())
                    .addAttribute(CALLER, c)
                    .build();
        });
    }
}
