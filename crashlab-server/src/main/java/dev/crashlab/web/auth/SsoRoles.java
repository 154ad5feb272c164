package dev.crashlab.web.auth;

import dev.crashlab.config.OidcConfig;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.jwt.JsonWebToken;

/** Maps the identity provider's role claim to CrashLab roles ({@code crashlab.oidc.role-claim}, {@code role-map}). */
public final class SsoRoles {

    private SsoRoles() {}

    /** The CrashLab roles the token's claim values map to; empty when none is mapped. */
    public static Set<String> map(JsonWebToken token, OidcConfig config) {
        List<String> values = claimValues(token, config.roleClaim());
        Set<String> roles = new TreeSet<>();
        for (String pair : config.roleMap().orElse(List.of())) {
            int eq = pair.lastIndexOf('=');
            if (eq <= 0) {
                continue;
            }
            String value = pair.substring(0, eq).strip();
            String role = pair.substring(eq + 1).strip().toLowerCase(Locale.ROOT);
            if (values.contains(value) && !role.isEmpty()) {
                roles.add(role);
            }
        }
        return roles;
    }

    /** The values of claim {@code path} ({@code a/b}: claim b inside object claim a), as strings. */
    static List<String> claimValues(JsonWebToken token, String path) {
        String[] steps = path.split("/");
        Object v = token.getClaim(steps[0]);
        for (int i = 1; i < steps.length && v != null; i++) {
            v = v instanceof JsonObject o ? o.get(steps[i]) : v instanceof java.util.Map<?, ?> m ? m.get(steps[i]) : null;
        }
        List<String> out = new ArrayList<>();
        if (v instanceof JsonArray a) {
            for (JsonValue e : a) {
                out.add(text(e));
            }
        } else if (v instanceof Collection<?> c) {
            c.forEach(e -> out.add(text(e)));
        } else if (v != null) {
            for (String part : text(v).split("[\\s,]+")) {
                if (!part.isEmpty()) {
                    out.add(part);
                }
            }
        }
        return out;
    }

    /** A claim value as plain text (JSON strings without their quotes). */
    public static String text(Object v) {
        return v instanceof JsonString s ? s.getString() : String.valueOf(v);
    }
}
