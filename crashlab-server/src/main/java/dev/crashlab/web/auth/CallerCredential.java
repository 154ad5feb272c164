package dev.crashlab.web.auth;

import io.quarkus.security.identity.request.BaseAuthenticationRequest;

/** A presented secret: an API token (from {@code Authorization: Bearer}) or a session id (from the cookie). */
final class CallerCredential extends BaseAuthenticationRequest {

    enum Kind { TOKEN, SESSION }

    final Kind kind;
    final String secret;

    CallerCredential(Kind kind, String secret) {
        this.kind = kind;
        this.secret = secret;
    }
}
