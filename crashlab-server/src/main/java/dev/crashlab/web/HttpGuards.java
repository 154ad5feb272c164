package dev.crashlab.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.web.problem.Problem;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The checks every request passes before anything else sees it, and the security headers every response
 * carries (README "Hardening defaults").
 *
 * <ul>
 *   <li>Host allow-list: a request without a {@code Host}, or whose {@code Host} is not a loopback name, the configured
 *       {@code quarkus.http.host} or one of {@code crashlab.http.allowed-hosts} gets a 400 problem. Binding to
 *       127.0.0.1 alone does not stop DNS rebinding: a foreign page's name pointed at 127.0.0.1 still
 *       carries its own name.
 *   <li>Cross-origin writes: a POST, PUT, PATCH or DELETE whose {@code Origin} (or, without one,
 *       {@code Sec-Fetch-Site}) says it comes from another site's page gets a 403 problem. Requests without
 *       either header (curl, workers, collectors) pass: browsers always send one of them on such requests.
 *   <li>(Body sizes: {@link RequestSizeLimit}, the route after this one.)
 *   <li>Headers: an app-wide Content-Security-Policy ({@code script-src 'self'}, {@code frame-ancestors
 *       'none'}), {@code nosniff}, {@code Referrer-Policy}, {@code X-Frame-Options}. A response that set its
 *       own policy (artifact content: {@code sandbox}) keeps it.
 * </ul>
 */
@ApplicationScoped
public class HttpGuards {

    /** The policy for the UI and the API. */
    static final String APP_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            + "frame-ancestors 'none'";

    /** The policy for uploaded bytes: no script, no plugin, no style, no same-origin privileges. */
    public static final String CONTENT_CSP = "sandbox; default-src 'none'";

    private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

    @Inject
    CrashLabConfig config;

    @Inject
    ObjectMapper json;

    @ConfigProperty(name = "quarkus.http.host", defaultValue = "127.0.0.1")
    String bindHost;

    /** The single sign-on path (AuthResource.oidcLogin): answered here with a 404 while single sign-on is off. */
    static final String SSO_LOGIN = "/api/auth/oidc/login";

    private Set<String> allowed;
    private boolean anyHost;

    void install(@Observes Router router) {
        Set<String> hosts = new HashSet<>(LOOPBACK);
        String bind = bindHost.strip().toLowerCase(Locale.ROOT);
        if (!bind.equals("0.0.0.0") && !bind.equals("::") && !bind.isEmpty()) {
            hosts.add(bind.contains(":") && !bind.startsWith("[") ? "[" + bind + "]" : bind);
        }
        config.http().allowedHosts().ifPresent(list -> list.forEach(h -> {
            String name = h.strip().toLowerCase(Locale.ROOT);
            if (name.equals("*")) {
                anyHost = true;
            } else if (!name.isEmpty()) {
                hosts.add(name);
            }
        }));
        allowed = Set.copyOf(hosts);
        router.route().order(Integer.MIN_VALUE + 5).handler(this::check);
    }

    private void check(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        ctx.addHeadersEndHandler(v -> secureHeaders(ctx.response().headers()));
        String host = request.getHeader(HttpHeaders.HOST);
        if (host == null && request.authority() != null) {
            host = request.authority().toString(); // HTTP/2's :authority
        }
        if (host == null && !anyHost) {
            // HTTP/1.0 without a Host: its name cannot be checked, so it is not answered as if it were ours
            respond(ctx, Problem.of("unknown-host", "Unknown host name", 400, "send a Host header naming this server",
                    request.path()));
            return;
        }
        if (host != null && !anyHost && !allowed.contains(hostName(host))) {
            respond(ctx, Problem.of("unknown-host", "Unknown host name", 400, "this server does not answer to the name `"
                    + clip(host) + "`; add it to crashlab.http.allowed-hosts (CRASHLAB_HTTP_ALLOWED_HOSTS) if it should",
                    request.path()));
            return;
        }
        if (!config.oidc().enabled() && request.path().startsWith(SSO_LOGIN)) {
            respond(ctx, Problem.of("sso-off", "Single sign-on is off", 404, "this server has no single sign-on; "
                    + "sign in with your CrashLab user name and password (an admin turns it on with crashlab.oidc.enabled)",
                    request.path()));
            return;
        }
        if (isWrite(request.method())) {
            String foreign = foreignOrigin(request, host);
            if (foreign != null) {
                respond(ctx, Problem.of("cross-origin", "Cross-site request refused", 403, "a page on " + foreign
                        + " may not change anything here; open CrashLab itself to do this", request.path()));
                return;
            }
        }
        ctx.next();
    }

    /** Returns a description of the foreign site a write comes from, or null if it is same-origin or not from a page. */
    static String foreignOrigin(HttpServerRequest request, String host) {
        String origin = request.getHeader("Origin");
        if (origin != null) {
            if (origin.equals("null")) {
                return "an opaque origin (a sandboxed page or a file)";
            }
            try {
                URI o = URI.create(origin.strip());
                String authority = o.getRawAuthority();
                if (authority == null || host == null || !sameAuthority(o.getScheme(), authority, host)) {
                    return "`" + clip(origin) + "`";
                }
                return null;
            } catch (IllegalArgumentException e) {
                return "`" + clip(origin) + "`";
            }
        }
        String site = request.getHeader("Sec-Fetch-Site");
        if (site != null && (site.equalsIgnoreCase("cross-site") || site.equalsIgnoreCase("same-site"))) {
            return "another site (" + site.toLowerCase(Locale.ROOT) + ")";
        }
        return null;
    }

    /** Compares an Origin's authority with a Host header; a Host without a port matches the scheme's default. */
    private static boolean sameAuthority(String scheme, String originAuthority, String host) {
        if (!hostName(originAuthority).equals(hostName(host))) {
            return false;
        }
        String originPort = port(originAuthority);
        if (originPort == null) {
            originPort = "https".equalsIgnoreCase(scheme) ? "443" : "80";
        }
        String hostPort = port(host.strip());
        // behind a TLS proxy the Host header often leaves the (default) port out
        return hostPort == null ? originPort.equals("80") || originPort.equals("443") : hostPort.equals(originPort);
    }

    private static String port(String authority) {
        int close = authority.lastIndexOf(']');
        int colon = authority.lastIndexOf(':');
        return colon > close && colon < authority.length() - 1 ? authority.substring(colon + 1) : null;
    }

    /** The host name of a Host header, lower-case, without its port; IPv6 literals keep their brackets. */
    static String hostName(String hostHeader) {
        String h = hostHeader.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int close = h.indexOf(']');
            return close > 0 ? h.substring(0, close + 1) : h;
        }
        int colon = h.indexOf(':');
        String name = colon >= 0 ? h.substring(0, colon) : h;
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    private static boolean isWrite(HttpMethod m) {
        return m == HttpMethod.POST || m == HttpMethod.PUT || m == HttpMethod.PATCH || m == HttpMethod.DELETE;
    }

    private static void secureHeaders(MultiMap headers) {
        if (!headers.contains("Content-Security-Policy")) {
            headers.set("Content-Security-Policy", APP_CSP);
        }
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("Referrer-Policy", "no-referrer");
        headers.set("X-Frame-Options", "DENY");
        headers.set("Cross-Origin-Opener-Policy", "same-origin");
    }

    private static String clip(String s) {
        String t = s.replaceAll("[\\p{Cntrl}`]", "?");
        return t.length() > 100 ? t.substring(0, 100) + "…" : t;
    }

    private void respond(RoutingContext ctx, Problem problem) {
        String body;
        try {
            body = json.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            body = "{\"status\":" + problem.status() + "}";
        }
        ctx.response().setStatusCode(problem.status()).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE).end(body);
    }
}
