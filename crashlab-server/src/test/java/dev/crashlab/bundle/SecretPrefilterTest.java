package dev.crashlab.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The redactor's prefilter (only lines holding a rule's literal anchor reach the rules) lets no secret through: on
 * every line where the rules, run without the prefilter, change anything, the prefilter says "may hold a secret";
 * and seeded secrets of every kind, in any letter case the rules accept, vanish from a file read the fast way.
 */
class SecretPrefilterTest {

    @TempDir
    Path dir;

    /** Pieces that lines are built from: anchors, near misses, separators, values, noise. */
    private static final String[] PIECES = {
        "-----BEGIN ", "-----BEGIN RSA PRIVATE KEY-----", "-----END PRIVATE KEY-----", "PRIVATE KEY-----", "\"private_key_id\"",
        "AKIA", "ASIA", "ABIA", "ACCA", "AIDA", "AROA", "AKIB", "secret", "SECRET", "Secret", "sEcReT", "_access_key", "aws_",
        "AccountKey", "accountkey", "SharedAccessKey", "SharedAccessSignature", "sig", "SIG", "Sig", "key", "KEY", "Key",
        "hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "gha_", "github_pat_", "sk-", "sk-proj-", "xoxb-", "xoxp-", "xox",
        "https://", "postgresql://", "://", "@", "user", ":", "=", " = ", ": ", "\"", "'", " ", "\t", ";", "&", ",", "/",
        "password", "PASSWORD", "Passwd", "pWd", "db_", "DB_", "TOKEN", "Token", "token", "API_KEY", "ACCESS_KEY", "AUTH_KEY",
        "PRIVATE_KEY", "SECRET_KEY", "_KEY", "CI_JOB_", "WANDB_", "<user>", "<host>", "${X}", "***", "null", "-", "_", ".",
        "RuntimeError: CUDA out of memory", "step 100 loss=0.25", "12:34:56", "torch.cuda", "ok.",
    };
    private static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+=";

    private static String randomLine(Random r) {
        StringBuilder b = new StringBuilder();
        int parts = 1 + r.nextInt(8);
        for (int i = 0; i < parts; i++) {
            if (r.nextInt(3) == 0) {
                int n = 1 + r.nextInt(r.nextBoolean() ? 8 : 48);
                for (int k = 0; k < n; k++) {
                    b.append(ALNUM.charAt(r.nextInt(ALNUM.length())));
                }
            } else {
                b.append(PIECES[r.nextInt(PIECES.length)]);
            }
        }
        return b.toString();
    }

    @Test
    void everyLineTheRulesWouldChangeIsLetThrough() {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        int changed = 0;
        List<String> lines = new ArrayList<>();
        for (SecretRedactorTest.Seed s : SecretRedactorTest.seeds()) {
            lines.add(s.line());
        }
        for (int i = 0; i < 300_000; i++) {
            lines.add(randomLine(r));
        }
        for (String line : lines) {
            Map<String, Integer> counts = new TreeMap<>();
            String out = SecretRedactor.redactEveryLineForTest(List.of(line), counts);
            if (!out.equals(line) || !counts.isEmpty()) {
                changed++;
                assertThat(SecretRedactor.mayHoldSecret(line)).as("seed " + seed + ": the prefilter drops " + line).isTrue();
            }
        }
        assertThat(changed).as("the random lines reach the rules often enough to test the prefilter").isGreaterThan(10_000);
    }

    @Test
    void wholeLinesBeforeTheFirstAnchorGoInOnePiece() {
        char[] c = "ok.\nstep 1 loss=0.5\nHF_TOKEN=x\nok.\n".toCharArray();
        assertThat(SecretRedactor.linesBeforeAnchor(c, 0, c.length)).as("up to the token's line").isEqualTo(20);
        char[] none = "ok.\nstep 1\npartial line with a token= in it".toCharArray();
        assertThat(SecretRedactor.linesBeforeAnchor(none, 0, none.length)).as("whole lines only").isEqualTo(11);
        char[] across = "see https://example\n@host then\nok.\n".toCharArray();
        assertThat(SecretRedactor.linesBeforeAnchor(across, 0, across.length))
                .as("a URL's '@' is looked for in its own line, as the prefilter looks").isEqualTo(across.length);
        char[] first = "--password x\nok.\n".toCharArray();
        assertThat(SecretRedactor.linesBeforeAnchor(first, 0, first.length)).isZero();
        assertThat(SecretRedactor.linesBeforeAnchor(first, 13, first.length)).as("from the middle").isEqualTo(first.length);
    }

    @Test
    void textsWithRunsOfPlainLinesRedactAsEveryLineDoes() {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        for (int round = 0; round < 200; round++) {
            List<String> lines = new ArrayList<>();
            int n = 1 + r.nextInt(400);
            for (int i = 0; i < n; i++) {
                String line = switch (r.nextInt(4)) {
                    case 0 -> randomLine(r);
                    case 1 -> "ok.";
                    case 2 -> "";
                    default -> "step " + i + " loss=0.5";
                };
                String end = i == n - 1 && r.nextBoolean() ? "" : r.nextInt(5) == 0 ? "\r\n" : "\n";
                lines.add(line + end);
            }
            String text = String.join("", lines);
            Map<String, Integer> fast = new TreeMap<>();
            Map<String, Integer> slow = new TreeMap<>();
            assertThat(SecretRedactor.redact(text, fast)).as("seed " + seed + ", round " + round)
                    .isEqualTo(SecretRedactor.redactEveryLineForTest(lines, slow));
            assertThat(fast).as("seed " + seed + ", round " + round).isEqualTo(slow);
        }
    }

    @Test
    void linesWithoutAnyAnchorAreSkipped() {
        assertThat(SecretRedactor.mayHoldSecret("ok.")).isFalse();
        assertThat(SecretRedactor.mayHoldSecret("12:34:56 step 100 loss=0.25 lr: 3e-4 torch.cuda OutOfMemoryError")).isFalse();
        assertThat(SecretRedactor.mayHoldSecret("https://download.example/whl")).isFalse(); // no '@': no credentials
        assertThat(SecretRedactor.mayHoldSecret("MAX_TOKEN=512")).isTrue(); // an anchor; the rules then decide
        // "token"/"key" count only when an assignment follows (tokenizer and throughput lines stay on the fast path)
        assertThat(SecretRedactor.mayHoldSecret("MAX_TOKENS=512 tokens/s 1520 keys 3")).isFalse();
    }

    @Test
    void seededSecretsOfEveryKindInAnyCaseVanishFromAFileReadTheFastWay() throws IOException {
        Random r = new Random();
        List<SecretRedactorTest.Seed> seeds = new ArrayList<>(SecretRedactorTest.seeds());
        // the case-insensitive rules, in shapes the fixed seeds do not use
        String v1 = SecretRedactorTest.random(SecretRedactorTest.ALNUM, 40);
        seeds.add(new SecretRedactorTest.Seed("aws-secret-key", v1, "AWS_SECRET_KEY: " + v1));
        String v2 = SecretRedactorTest.random(SecretRedactorTest.ALNUM, 30);
        seeds.add(new SecretRedactorTest.Seed("azure-key", v2, "https://x.blob/c?sv=1&SIG=" + v2));
        String v3 = SecretRedactorTest.random(SecretRedactorTest.ALNUM, 30);
        seeds.add(new SecretRedactorTest.Seed("azure-key", v3, "Endpoint=sb://x/;sharedaccesssignature=" + v3));
        String v4 = SecretRedactorTest.random(SecretRedactorTest.ALNUM, 12);
        seeds.add(new SecretRedactorTest.Seed("password", v4, "mysql --PwD=" + v4));
        String v5 = SecretRedactorTest.random(SecretRedactorTest.ALNUM, 12);
        seeds.add(new SecretRedactorTest.Seed("password", v5, "Passwd: " + v5));
        String v6 = SecretRedactorTest.random(SecretRedactorTest.ALNUM, 20);
        seeds.add(new SecretRedactorTest.Seed("secret", v6, "JWT_PRIVATE_KEY=" + v6));
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            String noise = randomLine(r);
            if (noise.contains("-----BEGIN")) {
                noise = "ok."; // an unclosed key block would swallow the seeds after it
            }
            text.append(r.nextInt(10) == 0 ? noise : "ok. step " + i + " loss=0.5").append('\n');
            if (i % 500 == 0) {
                text.append(seeds.get((i / 500) % seeds.size()).line()).append(r.nextBoolean() ? "\n" : "\r\n");
            }
        }
        for (SecretRedactorTest.Seed s : seeds) {
            text.append(s.line()).append('\n');
        }
        Path in = dir.resolve("mixed.log");
        Files.writeString(in, text, StandardCharsets.UTF_8);
        Path out = dir.resolve("mixed.redacted");
        SecretRedactor.Counts counts = SecretRedactor.redactFile(in, out);
        String redacted = Files.readString(out, StandardCharsets.UTF_8);
        for (SecretRedactorTest.Seed s : seeds) {
            assertThat(redacted).as(s.kind() + " in " + s.line()).doesNotContain(s.value());
            assertThat(counts.byKind()).as(s.kind()).containsKey(s.kind());
        }
        // the fast path and the every-line path agree byte for byte
        Map<String, Integer> slowCounts = new TreeMap<>();
        String slow = SecretRedactor.redactEveryLineForTest(List.of(text.toString().split("(?<=\n)")), slowCounts);
        assertThat(redacted).isEqualTo(slow);
        assertThat(counts.byKind()).isEqualTo(slowCounts);
    }
}
