package dev.crashlab.cluster;

import dev.crashlab.testing.S3ProxyServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Several servers on shared storage: the test PostgreSQL (every test server uses it) and one S3 store (a real
 * S3Proxy started before the app boots, bucket {@code crashlab-shared}, prefix {@code blobs/}). The settings are kept
 * in {@link #SETTINGS} so that child servers ({@link dev.crashlab.testing.ChildServer#onTestDatabase}) get the same.
 */
public class SharedStorageProfile implements QuarkusTestProfile {

    /** The shared-storage settings of the running profile (for child servers). */
    static final Map<String, String> SETTINGS = new java.util.concurrent.ConcurrentHashMap<>();
    static volatile S3ProxyServer s3;

    @Override
    public Map<String, String> getConfigOverrides() {
        // a data folder of its own: the index here starts empty and is built from the database
        return Map.of("crashlab.data-dir", "target/cluster-test/a");
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(S3Store.class));
    }

    public static class S3Store implements QuarkusTestResourceLifecycleManager {

        @Override
        public Map<String, String> start() {
            try {
                s3 = S3ProxyServer.start();
                s3.createBucket("crashlab-shared");
            } catch (Exception e) {
                throw new IllegalStateException("cannot start S3Proxy: " + e.getMessage(), e);
            }
            Map<String, String> m = new HashMap<>();
            m.put("crashlab.blob-store", "s3://crashlab-shared/blobs");
            m.put("crashlab.s3.endpoint", s3.endpoint().toString());
            m.put("crashlab.s3.region", "us-east-1");
            m.put("crashlab.s3.access-key-id", S3ProxyServer.KEY);
            m.put("crashlab.s3.secret-access-key", S3ProxyServer.SECRET);
            m.put("crashlab.s3.path-style", "true");
            m.put("crashlab.s3.part-size", "5M");
            m.put("crashlab.crash-index.poll-interval", "200ms");
            // a killed server's unfinished bundles are taken over 5 s after its last renewal, not the default 60 s
            m.put("crashlab.ingest.lease", "5s");
            SETTINGS.clear();
            SETTINGS.putAll(m);
            return m;
        }

        @Override
        public void stop() {
            if (s3 != null) {
                try {
                    s3.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
