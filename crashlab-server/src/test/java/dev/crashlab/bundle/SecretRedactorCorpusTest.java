package dev.crashlab.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance 2 of issue 26: every credential format in {@code redaction/credential-corpus.txt} is redacted (its
 * value gone, a marker in its place) and every look-alike there (hashes, commit ids, UUIDs, versions, tokenizer
 * settings, placeholders) stays exactly as it was; both as a short text (names, notes) and as a file read the fast
 * way (through the prefilter).
 */
class SecretRedactorCorpusTest {

    @TempDir
    Path dir;

    record Case(int line, boolean secret, String what, String text, String value) {}

    static List<Case> corpus() throws IOException {
        List<Case> out = new ArrayList<>();
        try (InputStream in = SecretRedactorCorpusTest.class.getClassLoader().getResourceAsStream("redaction/credential-corpus.txt")) {
            assertThat(in).as("redaction/credential-corpus.txt on the test class path").isNotNull();
            String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
            for (int i = 0; i < lines.length; i++) {
                String l = lines[i];
                if (l.isBlank() || l.startsWith("#")) {
                    continue;
                }
                String[] p = l.split("\\|", 3);
                assertThat(p).as("line " + (i + 1) + ": S|what|text or K|what|text").hasSize(3);
                boolean secret = p[0].equals("S");
                String text = p[2];
                String value = null;
                if (secret) {
                    int a = text.indexOf('⟦');
                    int b = text.indexOf('⟧');
                    assertThat(a).as("line " + (i + 1) + " marks its secret with ⟦ ⟧").isGreaterThanOrEqualTo(0).isLessThan(b);
                    value = text.substring(a + 1, b);
                    text = text.substring(0, a) + value + text.substring(b + 1);
                }
                out.add(new Case(i + 1, secret, p[1], text, value));
            }
        }
        return out;
    }

    @Test
    void everyCredentialIsRedactedAndEveryLookAlikeKept() throws IOException {
        List<Case> cases = corpus();
        assertThat(cases.stream().filter(Case::secret).count()).as("credential formats").isGreaterThanOrEqualTo(40);
        assertThat(cases.stream().filter(c -> !c.secret()).count()).as("look-alikes")
                .isGreaterThanOrEqualTo(cases.stream().filter(Case::secret).count() * 3 / 4);
        List<String> wrong = new ArrayList<>();
        StringBuilder file = new StringBuilder();
        for (Case c : cases) {
            Map<String, Integer> counts = new TreeMap<>();
            String out = SecretRedactor.redact(c.text(), counts);
            check(c, out, counts, "as text", wrong);
            file.append(c.text()).append('\n');
        }
        // the same lines as one file, read the fast way (prefilter, bulk buffer)
        Path in = Files.writeString(dir.resolve("corpus.log"), file.toString());
        Path redacted = dir.resolve("corpus.redacted");
        SecretRedactor.redactFile(in, redacted);
        List<String> outLines = Files.readAllLines(redacted);
        assertThat(outLines).hasSize(cases.size());
        for (int i = 0; i < cases.size(); i++) {
            check(cases.get(i), outLines.get(i), null, "in a file", wrong);
        }
        assertThat(wrong).as("corpus cases handled wrongly").isEmpty();
    }

    private static void check(Case c, String out, Map<String, Integer> counts, String how, List<String> wrong) {
        String where = "line " + c.line() + " (" + c.what() + ", " + how + "): ";
        if (c.secret()) {
            if (out.contains(c.value()) || !out.contains("<redacted:") || (counts != null && counts.isEmpty())) {
                wrong.add(where + "not redacted: " + out);
            }
        } else if (!out.equals(c.text())) {
            wrong.add(where + "look-alike changed: " + out);
        }
    }

    @Test
    void aTextLogWithAFewControlBytesIsTextAndARealBinaryIsNot() throws IOException {
        Path log = dir.resolve("train.log");
        byte[] text = ("step 1 loss=0.5\nHF_TOKEN=hf_" + "Ab1".repeat(12) + "\n").repeat(20).getBytes(StandardCharsets.US_ASCII);
        byte[] withNul = new byte[text.length + 1];
        System.arraycopy(text, 0, withNul, 0, 10);
        withNul[10] = 0;
        System.arraycopy(text, 10, withNul, 11, text.length - 10);
        Files.write(log, withNul);
        assertThat(SecretRedactor.mostlyText(log)).isTrue();
        Path binary = dir.resolve("weights.bin");
        byte[] noise = new byte[64 * 1024];
        new java.util.Random(26).nextBytes(noise);
        Files.write(binary, noise);
        assertThat(SecretRedactor.mostlyText(binary)).isFalse();
        assertThat(SecretRedactor.mostlyText(Files.write(dir.resolve("empty"), new byte[0]))).isFalse();
    }
}
