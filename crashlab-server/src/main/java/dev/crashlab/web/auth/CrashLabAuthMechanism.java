package dev.crashlab.web.auth;

import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpSecurityUtils;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.Cookie;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;

/**
 * Reads the caller's credential: {@code Authorization: Bearer <token>} first, else the session cookie.
 * Neither: anonymous (operations that need a role then answer 401).
 */
@ApplicationScoped
public class CrashLabAuthMechanism implements HttpAuthenticationMechanism {

    /** The session cookie (HttpOnly, SameSite=Lax, Secure when the request came over TLS). */
    public static final String COOKIE = "crashlab_session";

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identityProviderManager) {
        String header = context.request().getHeader("Authorization");
        CallerCredential credential = null;
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            credential = new CallerCredential(CallerCredential.Kind.TOKEN, header.substring(7).strip());
        } else {
            Cookie cookie = context.request().getCookie(COOKIE);
            if (cookie != null && !cookie.getValue().isBlank()) {
                credential = new CallerCredential(CallerCredential.Kind.SESSION, cookie.getValue());
            }
        }
        if (credential == null) {
            return Uni.createFrom().nullItem();
        }
        return identityProviderManager.authenticate(HttpSecurityUtils.setRoutingContextAttribute(credential, context));
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return Uni.createFrom().item(new ChallengeData(401, "WWW-Authenticate", "Bearer realm=\"CrashLab\""));
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(CallerCredential.class);
    }
}
