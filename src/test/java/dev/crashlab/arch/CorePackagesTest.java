package dev.crashlab.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the core plain Java (DESIGN.md): the CLI and the reproduction child process load it without a
 * Quarkus container or a database, so it must not import Quarkus, CDI, JAX-RS, JPA or Vert.x.
 */
class CorePackagesTest {

    static final Path MAIN = Path.of("src/main/java/dev/crashlab");

    /** Whole packages that are core. */
    static final Set<String> CORE_PACKAGES = Set.of("sniff", "cli", "fact", "parse", "repro", "kb", "compat", "diagnose",
            "search", "crashes", "domain", "facts");

    /** Sub-packages of core packages that hold the capability's Quarkus beans and entities. */
    static final Set<String> BEAN_PACKAGES = Set.of("repro/jobs", "crashes/service", "facts/store");

    /** Core classes in packages that also hold Quarkus beans and entities. */
    static final Set<String> CORE_CLASSES = Set.of(
            "bundle/BundleUnpacker.java", "bundle/ArchiveFormat.java", "bundle/ZipReader.java", "bundle/TarReader.java",
            "bundle/GzipReader.java", "bundle/EntryNames.java", "bundle/UnpackMessages.java", "bundle/UnpackStreams.java",
            "bundle/BlobStore.java", "bundle/LocalBlobStore.java", "bundle/S3BlobStore.java", "bundle/UnpackLimits.java",
            "bundle/StagedFile.java", "bundle/BundleRejectedException.java", "bundle/BundleManifest.java",
            "bundle/Upload.java");

    static final Pattern CONTAINER_IMPORT = Pattern.compile(
            "^import\\s+(?:static\\s+)?((?:io\\.quarkus|jakarta\\.(?:enterprise|inject|ws|persistence|transaction)"
                    + "|io\\.vertx|org\\.hibernate|io\\.smallrye|org\\.jboss\\.resteasy)\\S*);", Pattern.MULTILINE);

    @Test
    void coreCodeImportsNoContainer() throws IOException {
        List<Path> core = new ArrayList<>();
        for (String pkg : CORE_PACKAGES) {
            try (Stream<Path> files = Files.walk(MAIN.resolve(pkg))) {
                files.filter(p -> p.toString().endsWith(".java"))
                        .filter(p -> BEAN_PACKAGES.stream().noneMatch(b -> p.startsWith(MAIN.resolve(b))))
                        .forEach(core::add);
            }
        }
        CORE_CLASSES.forEach(c -> core.add(MAIN.resolve(c)));
        assertThat(core).allMatch(Files::isRegularFile);

        List<String> offences = new ArrayList<>();
        for (Path file : core) {
            Matcher m = CONTAINER_IMPORT.matcher(Files.readString(file));
            while (m.find()) {
                offences.add(MAIN.relativize(file) + " imports " + m.group(1));
            }
        }
        assertThat(offences).as("core code must stay plain Java").isEmpty();
    }

    @Test
    void theCheckRecognisesAContainerImport() {
        // guards the pattern itself: a test that cannot fail would prove nothing
        assertThat(CONTAINER_IMPORT.matcher("import jakarta.inject.Inject;").find()).isTrue();
        assertThat(CONTAINER_IMPORT.matcher("import io.quarkus.runtime.Startup;").find()).isTrue();
        assertThat(CONTAINER_IMPORT.matcher("import java.nio.file.Path;").find()).isFalse();
    }
}
