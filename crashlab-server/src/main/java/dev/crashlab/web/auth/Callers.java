package dev.crashlab.web.auth;

import dev.crashlab.account.Caller;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.SecurityIdentity;

/** The {@link Caller} of the current request. */
public final class Callers {

    private Callers() {}

    public static Caller of(SecurityIdentity identity) {
        Caller c = identity == null || identity.isAnonymous() ? null : identity.getAttribute(CallerIdentityProvider.CALLER);
        if (c == null) {
            throw new UnauthorizedException();
        }
        return c;
    }
}
