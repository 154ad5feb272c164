package dev.crashlab.config;

import io.smallrye.config.WithDefault;
import java.util.List;
import java.util.Optional;

/**
 * Single sign-on with an OpenID Connect provider ({@code crashlab.oidc.*}; env {@code CRASHLAB_OIDC_*}).
 * The provider itself is configured with Quarkus' own settings ({@code quarkus.oidc.auth-server-url},
 * {@code quarkus.oidc.client-id}, {@code quarkus.oidc.credentials.secret}); see docs/operators.md.
 */
public interface OidcConfig {

    /** Off by default; on, the sign-in page offers "Sign in with single sign-on" beside the password form. */
    @WithDefault("false")
    boolean enabled();

    /** What the sign-in button says, e.g. the provider's name. */
    @WithDefault("single sign-on")
    String label();

    /**
     * The ID-token claim whose values are mapped to roles: a list of strings (or one string of
     * space- or comma-separated values); {@code a/b} reads claim {@code b} inside object claim {@code a}.
     */
    @WithDefault("groups")
    String roleClaim();

    /**
     * {@code value=role} pairs: a user whose role claim holds {@code value} gets {@code role} (viewer, reporter,
     * triager, lab or admin). A value may appear more than once for several roles. A user with no mapped value
     * signs in with no roles (sees nothing until an admin maps them). Env CRASHLAB_OIDC_ROLE_MAP, comma-separated.
     */
    Optional<List<String>> roleMap();

    /** The claim a new account's user name is taken from (the subject when it is absent). */
    @WithDefault("preferred_username")
    String usernameClaim();
}
