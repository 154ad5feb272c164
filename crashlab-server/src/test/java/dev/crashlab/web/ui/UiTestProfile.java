package dev.crashlab.web.ui;

import dev.crashlab.testing.OidcProviderResource;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.List;
import java.util.Map;

/**
 * The browser tests' profile. Quinoa is off in tests by default; the browser tests need the built UI served from the
 * app. Quinoa builds it with {@code npm run build:once} (frontend/scripts/build-once.mjs): {@code npm run build} once
 * per test run, the same build again while frontend/ is unchanged (each UI profile's Quarkus build asks for it). Single
 * sign-on is on, against the real OpenID provider {@link OidcProviderResource} runs, as a deployment with it has it: the
 * sign-in page then offers it beside the password form ({@code OidcLoginBrowserTest}); the other browser tests sign in
 * by token or password as before. A random HTTP port keeps this extra Quarkus boot clear of other test runs on the
 * machine.
 */
public class UiTestProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.quinoa", "true", "quarkus.http.test-port", "0",
                "quarkus.quinoa.package-manager-command.build", "run build:once");
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(OidcProviderResource.class));
    }
}
