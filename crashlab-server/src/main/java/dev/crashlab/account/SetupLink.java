package dev.crashlab.account;

import dev.crashlab.config.CrashLabConfig;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The one-time link that creates the first admin. At start-up with no accounts, a fresh code goes to the
 * console and to {@code setup-link.txt} (mode 0600) in the data folder; it works once and dies with the process.
 * Start-up also makes sure the token named by {@code CRASHLAB_ADMIN_TOKEN} exists.
 */
@ApplicationScoped
public class SetupLink {

    private static final Logger LOG = Logger.getLogger(SetupLink.class);
    public static final String FILE_NAME = "setup-link.txt";

    @Inject
    CrashLabConfig config;

    @Inject
    TokenService tokens;

    @ConfigProperty(name = "quarkus.http.host", defaultValue = "127.0.0.1")
    String host;

    @ConfigProperty(name = "quarkus.http.port", defaultValue = "8080")
    int port;

    private volatile String code;

    void start(@Observes @Priority(100) StartupEvent event) {
        config.adminToken().filter(t -> !t.isBlank()).ifPresent(tokens::ensureAdminToken);
        boolean noUsers = QuarkusTransaction.requiringNew().call(() -> UserAccount.count() == 0);
        Path file = file();
        if (!noUsers) {
            deleteFile(file);
            return;
        }
        code = Secrets.generate("");
        String shownHost = host.equals("0.0.0.0") || host.equals("::") ? "localhost" : host.contains(":") ? "[" + host + "]" : host;
        String link = "http://" + shownHost + ":" + port + "/setup?code=" + code;
        try {
            write(file, link + "\n");
        } catch (IOException e) {
            LOG.warnf("could not write %s (%s); the link is only on the console", file, e.getMessage());
        }
        LOG.infof("%n%n  CrashLab has no accounts yet. Create the first admin (this link works once):%n    %s%n"
                + "  (also in %s; behind a proxy, use the same path on your public address)%n", link, file);
    }

    Path file() {
        return config.dataDir().resolve(FILE_NAME);
    }

    /** Whether {@code candidate} is the current setup code (constant-time). */
    boolean matches(String candidate) {
        String current = code;
        return current != null && candidate != null
                && MessageDigest.isEqual(current.getBytes(StandardCharsets.UTF_8), candidate.strip().getBytes(StandardCharsets.UTF_8));
    }

    /** Whether a setup link is live (no accounts yet). */
    public boolean open() {
        return code != null;
    }

    void used() {
        code = null;
        deleteFile(file());
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(file);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(file);
        }
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
    }

    private static void deleteFile(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warnf("could not delete %s: %s", file, e.getMessage());
        }
    }

}
