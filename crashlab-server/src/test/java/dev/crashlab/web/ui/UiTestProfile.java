package dev.crashlab.web.ui;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Quinoa is off in tests by default; the browser tests need the built UI served from the app. A random
 * HTTP port keeps this extra Quarkus boot clear of other test runs on the machine.
 */
public class UiTestProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.quinoa", "true", "quarkus.http.test-port", "0");
    }
}
