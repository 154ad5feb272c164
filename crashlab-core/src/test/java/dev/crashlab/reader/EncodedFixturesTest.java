package dev.crashlab.reader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.sniff.Encodings;

import java.io.ByteArrayInputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every text file of our bundles (console logs, environment listings, nvidia-smi dumps, kernel logs, saved event
 * text: {@code kb-fixtures/}, {@code kb-fixtures-versus/}, {@code kb-shapes/}) read as Windows tools save it gives
 * what its UTF-8 form gives: the same type, facts and text window. PowerShell 5.1's {@code >} and {@code Out-File}
 * write UTF-16LE with a byte order mark (its documented default); Notepad and .NET writers UTF-16 with or without one,
 * either byte order; a legacy console Windows-1252.
 */
class EncodedFixturesTest {

    static final Path RESOURCES = Path.of("crashlab-core/src/test/resources");
    static final Charset CP1252 = Charset.forName("windows-1252");

    static Stream<String> files() throws Exception {
        List<String> out = new ArrayList<>();
        for (String root : List.of("kb-fixtures", "kb-fixtures-versus", "kb-shapes")) {
            try (Stream<Path> s = Files.walk(RESOURCES.resolve(root))) {
                s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals("shape.txt"))
                        .filter(EncodedFixturesTest::isUtf8Text).map(p -> RESOURCES.relativize(p).toString().replace('\\', '/'))
                        .sorted().forEach(out::add);
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void aFileSavedAsWindowsToolsSaveItReadsAsItsUtf8Form(String file) throws Exception {
        byte[] utf8 = Files.readAllBytes(RESOURCES.resolve(file));
        String text = new String(utf8, StandardCharsets.UTF_8);
        String name = Path.of(file).getFileName().toString();
        ArtifactRead expected = read(name, utf8);
        for (Map.Entry<String, byte[]> v : variants(text).entrySet()) {
            ArtifactRead got = read(name, v.getValue());
            assertThat(got.type()).as(file + " as " + v.getKey() + ": type").isEqualTo(expected.type());
            assertThat(got.facts()).as(file + " as " + v.getKey() + ": facts").isEqualTo(expected.facts());
            assertThat(got.window()).as(file + " as " + v.getKey() + ": text window").isEqualTo(expected.window());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void aPastedLogSavedAsUtf16IsCleanedAsItsUtf8Form(String file) throws Exception {
        String text = Files.readString(RESOURCES.resolve(file), StandardCharsets.UTF_8);
        String name = Path.of(file).getFileName().toString();
        // quoted in a reply and coloured: the forms PastedText undoes
        String pasted = text.lines().map(l -> "> \u001b[0m" + l).collect(java.util.stream.Collectors.joining("\n", "", "\n"));
        ArtifactRead expected = read(name, pasted.getBytes(StandardCharsets.UTF_8));
        if (!expected.type().equals("CONSOLE_LOG") && !expected.type().equals("TEXT")) {
            return; // an event export or a listing reads quotes its own way; the encodings above cover it
        }
        byte[] utf16 = Encodings.utf16leWithBom(pasted);
        ArtifactRead got = read(name, utf16);
        assertThat(got.facts()).as(file + " quoted, coloured, UTF-16LE: facts").isEqualTo(expected.facts());
        assertThat(got.window()).as(file + " quoted, coloured, UTF-16LE: text window").isEqualTo(expected.window());
    }

    /** The text as UTF-16LE/BE with and without a BOM, and as Windows-1252 where every character has a byte there. */
    static Map<String, byte[]> variants(String text) {
        Map<String, byte[]> out = Encodings.utf16(text);
        if (!text.chars().allMatch(c -> c < 0x80) && CP1252.newEncoder().canEncode(text)) {
            out.put("windows-1252", text.getBytes(CP1252));
        }
        return out;
    }

    static ArtifactRead read(String name, byte[] bytes) throws Exception {
        BundleReader.Item item = new BundleReader.Item(name, null, bytes.length, () -> new ByteArrayInputStream(bytes));
        return new BundleReader(ReadBudget.defaults()).read(List.of(item)).artifacts().getFirst();
    }

    static boolean isUtf8Text(Path p) {
        try {
            byte[] b = Files.readAllBytes(p);
            for (byte x : b) {
                if (x == 0) {
                    return false;
                }
            }
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(b));
            return b.length > 0;
        } catch (CharacterCodingException e) {
            return false;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

}
