package dev.crashlab.unpack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.crashlab.unpack.BundleRejectedException.Kind;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Checks which client file names {@link BundleUnpacker#validateName} accepts, and what it keeps of them. */
class BundleUnpackerNameTest {

    static Stream<Arguments> acceptedNames() {
        return Stream.of(
                Arguments.of("crash.zip", "crash.zip"),
                Arguments.of("C:\\fakepath\\crash.zip", "crash.zip"),
                Arguments.of("/home/me/logs/train.log", "train.log"),
                Arguments.of("my crash (copy).log", "my crash (copy).log"),
                Arguments.of("Überprüfung café.txt", "Überprüfung café.txt"),
                Arguments.of("日志 ログ 로그.txt", "日志 ログ 로그.txt"),
                Arguments.of("🚀 run 🔥.log", "🚀 run 🔥.log"),
                Arguments.of("...hidden", "...hidden"),
                Arguments.of("é".repeat(127) + "x", "é".repeat(127) + "x")); // 255 UTF-8 bytes: the most allowed
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("acceptedNames")
    void keepsTheLastSegmentOfAnAcceptedName(String name, String kept) throws Exception {
        assertEquals(kept, BundleUnpacker.validateName(name));
    }

    static Stream<Arguments> refusedNames() {
        return Stream.of(
                Arguments.of("", "it is empty"),
                Arguments.of("logs/", "it is empty"),
                Arguments.of(".", "`.` is not a file name"),
                Arguments.of("C:\\..", "`..` is not a file name"),
                Arguments.of("bell\u0007.log", "control character U+0007"),
                Arguments.of("tab\t.log", "control character U+0009"),
                Arguments.of("line\n.log", "control character U+000A"),
                Arguments.of("del\u007F.log", "control character U+007F"),
                Arguments.of("c1\u009B.log", "control character U+009B"),
                Arguments.of("invoice\u202Egpj.exe", "bidirectional control character U+202E"),
                Arguments.of("x\u2066y.txt", "bidirectional control character U+2066"),
                Arguments.of("dir\u0000/x.txt", "control character U+0000"),
                Arguments.of("half\uD83D.txt", "unpaired surrogate"),
                Arguments.of("é".repeat(128), "longer than 255 bytes"),
                Arguments.of("d/".repeat(520) + "x.log", "longer than 1024 characters"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("refusedNames")
    void refusesNamesThatAreNotAccepted(String name, String why) {
        BundleRejectedException e = assertThrows(BundleRejectedException.class, () -> BundleUnpacker.validateName(name));

        assertEquals(Kind.BAD_NAME, e.kind());
        assertTrue(e.getMessage().contains(why), e.getMessage());
        assertFalse(e.getMessage().chars().anyMatch(c -> c < 0x20 || (c >= 0x202a && c <= 0x202e)),
                "the message must not carry the character it refuses: " + e.getMessage());
    }

    @Test
    void refusesAMissingName() {
        assertEquals(Kind.BAD_NAME, assertThrows(BundleRejectedException.class, () -> BundleUnpacker.validateName(null)).kind());
    }
}
