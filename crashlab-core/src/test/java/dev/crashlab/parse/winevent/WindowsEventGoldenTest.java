package dev.crashlab.parse.winevent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.GoldenFiles;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Compares each event-log parser's facts on its own fixtures with the reviewed golden files. */
class WindowsEventGoldenTest {

    static Stream<Arguments> fixtures() {
        List<Object[]> parsers = List.of(
                new Object[] {new WindowsEventTextParser(), ArtifactType.EVENTLOG_TEXT},
                new Object[] {new WindowsEventTabParser(), ArtifactType.EVENTLOG_TEXT},
                new Object[] {new WindowsEventXmlParser(), ArtifactType.EVENTLOG_XML},
                new Object[] {new WindowsEventCsvParser(), ArtifactType.EVENTLOG_CSV});
        return parsers.stream().flatMap(p -> {
            ArtifactParser parser = (ArtifactParser) p[0];
            List<Path> files = GoldenFiles.fixtures(parser.name());
            assertThat(files).as("fixtures of %s", parser.name()).isNotEmpty();
            return files.stream().map(f -> Arguments.of(parser.name() + "/" + f.getFileName(), parser, p[1], f));
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void factsMatchTheGoldenFile(String name, ArtifactParser parser, ArtifactType type, Path fixture) throws IOException {
        GoldenFiles.check(parser, type, fixture);
    }
}
