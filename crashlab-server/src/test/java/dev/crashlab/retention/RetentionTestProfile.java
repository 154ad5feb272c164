package dev.crashlab.retention;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** Retention on: bundles are kept 30 days, each user may store 256 KiB, and the sweep runs every half second. */
public class RetentionTestProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("crashlab.retention.days", "30", "crashlab.retention.quota", "256K",
                "crashlab.retention.sweep-interval", "500ms", "quarkus.http.test-port", "0");
    }
}
