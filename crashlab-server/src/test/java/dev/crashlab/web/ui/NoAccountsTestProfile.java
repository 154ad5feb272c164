package dev.crashlab.web.ui;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * The UI profile on a server with no accounts yet, as on a first start: before the app boots, the test
 * database's accounts are removed (their sessions and tokens go with them), so start-up prints and writes
 * the one-time setup link. Tests that need accounts make their own, so no other test depends on them.
 */
public class NoAccountsTestProfile extends UiTestProfile {

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(RemoveAccounts.class));
    }

    public static class RemoveAccounts implements QuarkusTestResourceLifecycleManager {

        @Override
        public Map<String, String> start() {
            String url = "jdbc:postgresql://127.0.0.1:" + System.getenv().getOrDefault("TEST_PG_PORT", "5432") + "/crashlab";
            try (Connection c = DriverManager.getConnection(url, "crashlab", "")) {
                c.createStatement().executeUpdate("DELETE FROM app_user");
            } catch (SQLException e) {
                // no app_user table yet (a fresh database): there are no accounts either
            }
            return Map.of();
        }

        @Override
        public void stop() {}
    }
}
