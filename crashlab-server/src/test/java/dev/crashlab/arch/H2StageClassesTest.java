package dev.crashlab.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The server pom's {@code h2-persistence} execution names its classes in {@code <includes>} as well as selecting
 * {@code @Tag("persistence")}: a tag filter acts only after JUnit has loaded every test class, and Quarkus builds the
 * application of each class's test profile as it loads it, so a stage selected by tag alone pays a Quarkus build for
 * every profile of the module (and a UI build for each browser profile). This keeps the list and the tags the same.
 */
class H2StageClassesTest {

    static final Path POM = Path.of("crashlab-server/pom.xml");
    static final Path TESTS = Path.of("crashlab-server/src/test/java");
    static final Pattern TAG = Pattern.compile("^@Tag\\(\"persistence\"\\)\\s*$", Pattern.MULTILINE);

    @Test
    void theH2StageListsExactlyThePersistenceTaggedClasses() throws IOException {
        String pom = Files.readString(POM);
        Matcher execution = Pattern.compile("<id>h2-persistence</id>(.*?)</execution>", Pattern.DOTALL).matcher(pom);
        assertThat(execution.find()).as("the h2-persistence execution in %s", POM).isTrue();
        Set<String> listed = new TreeSet<>();
        Matcher include = Pattern.compile("<include>([^<]+)</include>").matcher(execution.group(1));
        while (include.find()) listed.add(include.group(1).strip());

        Set<String> tagged = new TreeSet<>();
        try (Stream<Path> files = Files.walk(TESTS)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                if (TAG.matcher(Files.readString(f)).find()) {
                    tagged.add(TESTS.relativize(f).toString().replace('\\', '/'));
                }
            }
        }
        assertThat(tagged).as("classes tagged persistence").isNotEmpty();
        assertThat(listed).as("the <include>s of h2-persistence in %s against the @Tag(\"persistence\") classes", POM)
                .isEqualTo(tagged);
    }
}
