package dev.crashlab.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the plain-Java modules plain (docs/architecture.md, "Rules that keep the shape"): the CLI and the reproduction
 * child process load them without a Quarkus container or a database, so their sources must not import Quarkus, CDI,
 * JAX-RS, JPA or Vert.x. (Their poms have no Quarkus dependency, so such an import would not compile; this also catches
 * one that arrives transitively.)
 */
class CorePackagesTest {

    /** The source roots of the modules that must stay plain Java. */
    static final List<Path> PLAIN_MODULES = List.of(Path.of("crashlab-core/src/main/java"), Path.of("crashlab-conv/src/main/java"),
            Path.of("crashlab-repro/src/main/java"), Path.of("crashlab-cli/src/main/java"));

    static final Pattern CONTAINER_IMPORT = Pattern.compile(
            "^import\\s+(?:static\\s+)?((?:io\\.quarkus|jakarta\\.(?:enterprise|inject|ws|persistence|transaction)"
                    + "|io\\.vertx|org\\.hibernate|io\\.smallrye|org\\.jboss\\.resteasy)\\S*);", Pattern.MULTILINE);

    @Test
    void coreCodeImportsNoContainer() throws IOException {
        List<Path> core = new ArrayList<>();
        for (Path root : PLAIN_MODULES) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(p -> p.toString().endsWith(".java")).forEach(core::add);
            }
        }
        assertThat(core).hasSizeGreaterThan(300);

        List<String> offences = new ArrayList<>();
        for (Path file : core) {
            Matcher m = CONTAINER_IMPORT.matcher(Files.readString(file));
            while (m.find()) {
                offences.add(file + " imports " + m.group(1));
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
