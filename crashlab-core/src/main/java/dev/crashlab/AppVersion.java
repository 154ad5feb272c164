package dev.crashlab;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** CrashLab's version, as the build stamped it into {@code version.properties}. */
public final class AppVersion {

    private AppVersion() {}

    /** The version, or {@code unknown} when the build did not stamp one. */
    public static String version() {
        Properties p = new Properties();
        try (InputStream in = AppVersion.class.getResourceAsStream("/dev/crashlab/version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version", "unknown");
    }
}
