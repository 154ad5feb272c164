package dev.crashlab.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Runs a real OpenID Connect provider for the single sign-on tests: the certified {@code oidc-provider}
 * package ({@code src/test/oidc}, installed with {@code npm ci} from its committed lock file) under the
 * machine's node, on a loopback port of its own, with CrashLab registered as a client.
 * Without node the tests that need it skip themselves ({@link #SKIP_PROPERTY} holds the reason).
 */
public class OidcProviderResource implements QuarkusTestResourceLifecycleManager {

    /** System property set to a one-line reason when no provider could be started for want of node. */
    public static final String SKIP_PROPERTY = "crashlab.test.oidc.skip";

    static final Path DIR = Path.of("crashlab-server/src/test/oidc");

    private Process provider;

    @Override
    public Map<String, String> start() {
        String node = onPath("node");
        String npm = onPath("npm");
        if (node == null || npm == null) {
            System.setProperty(SKIP_PROPERTY, "node and npm are not installed: single sign-on test skipped");
            return Map.of();
        }
        System.clearProperty(SKIP_PROPERTY);
        try {
            installPackages(npm);
            int providerPort = freePort();
            String secret = "test-" + UUID.randomUUID() + UUID.randomUUID();
            String issuer = "http://127.0.0.1:" + providerPort;
            Path log = Path.of("target", "oidc-provider.log");
            Files.createDirectories(log.getParent());
            provider = new ProcessBuilder(node, "provider.mjs", Integer.toString(providerPort), secret,
                    // a native client's loopback redirect URIs match on any port (RFC 8252): the test server's is random
                    "http://localhost/api/auth/oidc/login", "http://127.0.0.1/api/auth/oidc/login")
                    .directory(DIR.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            awaitDiscovery(issuer, log);
            return Map.of(
                    "crashlab.oidc.enabled", "true",
                    "crashlab.oidc.label", "Test provider",
                    "crashlab.oidc.role-map", "crashlab-triage=triager,crashlab-lab=lab,crashlab-lab=reporter",
                    "quarkus.oidc.auth-server-url", issuer,
                    "quarkus.oidc.client-id", "crashlab",
                    "quarkus.oidc.credentials.secret", secret);
        } catch (IOException e) {
            stop();
            throw new IllegalStateException("could not start the test OpenID provider: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new IllegalStateException("interrupted while starting the test OpenID provider", e);
        }
    }

    @Override
    public void stop() {
        if (provider != null) {
            provider.descendants().forEach(ProcessHandle::destroy);
            provider.destroy();
            try {
                if (!provider.waitFor(10, TimeUnit.SECONDS)) {
                    provider.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                provider.destroyForcibly();
            }
            provider = null;
        }
    }

    /** {@code npm ci} unless node_modules already holds what the lock file names. */
    private static void installPackages(String npm) throws IOException, InterruptedException {
        Path installed = DIR.resolve("node_modules/.package-lock.json");
        Path lock = DIR.resolve("package-lock.json");
        if (Files.exists(installed) && Files.getLastModifiedTime(installed).compareTo(Files.getLastModifiedTime(lock)) >= 0
                && Files.isDirectory(DIR.resolve("node_modules/oidc-provider"))) {
            return;
        }
        Path log = Path.of("target", "oidc-npm-ci.log");
        Files.createDirectories(log.getParent());
        Process ci = new ProcessBuilder(npm, "ci", "--no-audit", "--no-fund").directory(DIR.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!ci.waitFor(5, TimeUnit.MINUTES)) {
            ci.destroyForcibly();
            throw new IOException("npm ci in " + DIR + " took over 5 minutes (see " + log + ")");
        }
        if (ci.exitValue() != 0) {
            throw new IOException("npm ci in " + DIR + " failed with exit code " + ci.exitValue() + ":\n" + Files.readString(log));
        }
    }

    private void awaitDiscovery(String issuer, Path log) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest discovery = HttpRequest.newBuilder(URI.create(issuer + "/.well-known/openid-configuration"))
                .timeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!provider.isAlive()) {
                throw new IOException("the provider exited with code " + provider.exitValue() + ":\n" + Files.readString(log));
            }
            try {
                if (http.send(discovery, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IOException("the provider did not answer discovery within 60 s:\n" + Files.readString(log));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
