package dev.crashlab.web.ui;

import java.util.Map;

/** The browser profile with the server's local worker on (CPU backend), as a one-command start has it. */
public class ReproUiTestProfile extends UiTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.quinoa", "true", "quarkus.http.test-port", "0",
                "crashlab.lab.local-worker", "true", "crashlab.lab.local-backend", "cpu",
                "crashlab.lab.poll-interval", "200ms");
    }
}
