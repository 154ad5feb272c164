package dev.crashlab.web.ui;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The browser profile with the server's local worker on (CPU backend), as a one-command start has it; no single
 * sign-on (its test runs in {@link UiTestProfile}).
 */
public class ReproUiTestProfile extends UiTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> config = new HashMap<>(super.getConfigOverrides());
        config.putAll(Map.of("crashlab.lab.local-worker", "true", "crashlab.lab.local-backend", "cpu",
                "crashlab.lab.poll-interval", "200ms"));
        return config;
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of();
    }
}
