/**
 * Authentication for every HTTP request: a bearer API token or the session cookie becomes a Quarkus
 * {@code SecurityIdentity} whose roles the REST operations' {@code @RolesAllowed} check; unannotated
 * operations are refused ({@code quarkus.security.jaxrs.deny-unannotated-endpoints}).
 */
package dev.crashlab.web.auth;
