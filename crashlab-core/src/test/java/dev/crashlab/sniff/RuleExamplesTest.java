package dev.crashlab.sniff;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks that the example each rule documents is recognised by that rule and, on its own, gives the
 * rule's type; an example that drifts from its rule is worse than none.
 */
class RuleExamplesTest {

    private final ArtifactSniffer sniffer = new ArtifactSniffer();

    static Stream<Arguments> signatures() {
        return Signatures.ALL.stream().map(s -> Arguments.of(s.name(), s));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("signatures")
    void signatureRecognisesItsExample(String name, Signature s) {
        assertTrue(s.locate(new SniffText(s.example(), "")) >= 0, name + " does not locate its example");
        assertEquals(s.type(), sniffer.sniff("upload.bin", s.example().getBytes(UTF_8)), name);
    }

    static Stream<Arguments> consoleMarkers() {
        return ConsoleMarkers.ALL.stream().map(m -> Arguments.of(m.name(), m));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("consoleMarkers")
    void consoleMarkerRecognisesItsExample(String name, ConsoleMarkers.Marker m) {
        assertTrue(m.matches().test(m.example().strip()), name + " does not match its example");
        assertEquals(ArtifactType.CONSOLE_LOG, sniffer.sniff("upload.bin", m.example().getBytes(UTF_8)), name);
    }

    static Stream<Arguments> shapeRules() {
        return ShapeRules.ALL.stream().map(r -> Arguments.of(r.name(), r));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapeRules")
    void shapeRuleRecognisesItsExample(String name, ShapeRules.ShapeRule r) {
        assertTrue(r.test().test(new SniffText(r.example(), "")), name + " does not accept its example");
        assertEquals(r.type(), sniffer.sniff("upload.bin", r.example().getBytes(UTF_8)), name);
    }

    @Test
    void ruleNamesAreUnique() {
        List<String> names = Stream.of(
                        Signatures.ALL.stream().map(Signature::name),
                        ConsoleMarkers.ALL.stream().map(ConsoleMarkers.Marker::name),
                        ShapeRules.ALL.stream().map(ShapeRules.ShapeRule::name))
                .flatMap(s -> s)
                .toList();
        assertEquals(names.size(), names.stream().distinct().count(), names.toString());
    }

    /** Lines each console marker must NOT fire on, because they belong to other formats. */
    static Stream<Arguments> notConsole() {
        return Stream.of(
                Arguments.of("Exception code: 0xc0000409"),
                Arguments.of("Error: see above"),
                Arguments.of("Faulting module name: ucrtbase.dll, version: 10.0.22621.2506"),
                Arguments.of("cuda: 11.8"),
                Arguments.of("RuntimeWarning: 'torch.utils.collect_env' found in sys.modules"),
                Arguments.of("[ 8123.554201] python3[40311]: segfault at 0 ip 00007f3b1c2d3e4f"),
                Arguments.of("Display driver nvlddmkm stopped responding and has successfully recovered."),
                Arguments.of("Killed process 4242 (python3) total-vm:81234567kB"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("notConsole")
    void consoleMarkersStayOffOtherFormats(String line) {
        assertFalse(ConsoleMarkers.matches(line), line);
    }
}
