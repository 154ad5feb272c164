package dev.crashlab.account;

import java.util.Set;

/**
 * Who made a request, once authenticated.
 *
 * @param name the user name, or {@code token:<name>} for a token without an owner (the provisioned admin token)
 * @param userId the account, or null for an ownerless token
 * @param roles the effective roles (implications applied)
 * @param tokenId the API token used, or null for a login session
 * @param workerName the one worker a worker token may act as, else null
 */
public record Caller(String name, Long userId, Set<String> roles, Long tokenId, String workerName) {

    public boolean has(String role) {
        return roles.contains(role);
    }

    /** Whether the caller came with a login session (cookie) rather than a token. */
    public boolean session() {
        return tokenId == null;
    }
}
