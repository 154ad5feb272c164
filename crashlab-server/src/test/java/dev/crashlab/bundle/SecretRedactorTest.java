package dev.crashlab.bundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Secret shapes are replaced by {@code <redacted:kind>}, and nothing else in the file changes. */
public class SecretRedactorTest {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Path CORPUS = Path.of("../shared/corpus");

    @TempDir
    Path dir;

    /** A fresh random string over {@code alphabet}, so no test can pass by knowing its values. */
    public static String random(String alphabet, int length) {
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            b.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    public static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static final String UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

    /** One seeded secret: the line it sits in, the value that must vanish, and the kind it is counted as. */
    public record Seed(String kind, String value, String line) {}

    /** Secrets of every kind the redactor knows, each with random values, in the shapes tools print them. */
    public static List<Seed> seeds() {
        List<Seed> s = new ArrayList<>();
        String akia = "AKIA" + random(UPPER_DIGITS, 16);
        s.add(new Seed("aws-access-key", akia, "AWS_ACCESS_KEY_ID=" + akia));
        String awsSecret = random(ALNUM + "/+", 40);
        s.add(new Seed("aws-secret-key", awsSecret, "aws_secret_access_key = " + awsSecret));
        String azure = random(ALNUM + "+/", 86) + "==";
        s.add(new Seed("azure-key", azure, "AZURE_STORAGE_CONNECTION_STRING: DefaultEndpointsProtocol=https;AccountName=labstore;AccountKey="
                + azure + ";EndpointSuffix=core.windows.net"));
        String hf = "hf_" + random(ALNUM, 34);
        s.add(new Seed("huggingface-token", hf, "HF_TOKEN=" + hf));
        String hfBare = "hf_" + random(ALNUM, 34);
        s.add(new Seed("huggingface-token", hfBare, "OSError: 401 Client Error for token " + hfBare + " (repository not found)"));
        String ghp = "ghp_" + random(ALNUM, 36);
        s.add(new Seed("github-token", ghp, "git clone https://" + ghp + "@github.example/org/repo.git"));
        String pat = "github_pat_" + random(ALNUM, 22) + "_" + random(ALNUM, 59);
        s.add(new Seed("github-token", pat, "GH_PAT=" + pat));
        String gho = "gho_" + random(ALNUM, 36);
        s.add(new Seed("github-token", gho, "  oauth_token: " + gho));
        String openai = "sk-proj-" + random(ALNUM, 20) + "-" + random(ALNUM, 28) + "9";
        s.add(new Seed("openai-key", openai, "openai.AuthenticationError: Incorrect API key provided: " + openai + "."));
        String slack = "xoxb-" + random("0123456789", 12) + "-" + random("0123456789", 12) + "-" + random(ALNUM, 24);
        s.add(new Seed("slack-token", slack, "slack_sdk.errors.SlackApiError: invalid_auth for " + slack));
        String hfEnv = random(ALNUM, 30);
        s.add(new Seed("token", hfEnv, "WANDB_API_KEY=" + hfEnv));
        String tok = random(ALNUM, 24);
        s.add(new Seed("token", tok, "export CI_JOB_TOKEN=\"" + tok + "\""));
        String sec = random(ALNUM, 32);
        s.add(new Seed("secret", sec, "CLIENT_SECRET: " + sec));
        String pw = random(ALNUM, 12) + "!";
        s.add(new Seed("password", pw, "PASSWORD=" + pw));
        String dbPw = random(ALNUM, 14);
        s.add(new Seed("password", dbPw, "db_password: '" + dbPw + "'"));
        String urlPw = random(ALNUM, 16);
        s.add(new Seed("url-credentials", urlPw, "sqlalchemy.exc.OperationalError: could not connect to postgresql://trainer:"
                + urlPw + "@db.internal:5432/runs"));
        String keyId = random("0123456789abcdef", 40);
        s.add(new Seed("gcp-private-key-id", keyId, "  \"private_key_id\": \"" + keyId + "\","));
        String gcpBody = random(ALNUM + "+/", 64);
        s.add(new Seed("private-key", gcpBody, "  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n" + gcpBody
                + "\\n-----END PRIVATE KEY-----\\n\","));
        return s;
    }

    @Test
    void everyKindIsReplacedAndCounted() {
        List<Seed> seeds = seeds();
        for (Seed seed : seeds) {
            Map<String, Integer> counts = new TreeMap<>();
            String out = SecretRedactor.redact(seed.line() + "\n", counts);
            assertThat(out).as(seed.line()).doesNotContain(seed.value()).contains("<redacted:" + seed.kind() + ">");
            assertThat(counts).as(seed.line()).containsEntry(seed.kind(), 1);
            assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).as(seed.line()).isEqualTo(1);
        }
    }

    @Test
    void aMultiLinePemBlockGoesButItsLinesStay() {
        String body1 = random(ALNUM, 64);
        String body2 = random(ALNUM, 40);
        String text = "before\r\n-----BEGIN RSA PRIVATE KEY-----\r\n" + body1 + "\r\n" + body2
                + "\r\n-----END RSA PRIVATE KEY----- after\r\nlast line\r\n";
        Map<String, Integer> counts = new TreeMap<>();
        String out = SecretRedactor.redact(text, counts);
        assertThat(out).doesNotContain(body1).doesNotContain(body2)
                .isEqualTo("before\r\n<redacted:private-key>\r\n\r\n\r\n after\r\nlast line\r\n");
        assertThat(counts).isEqualTo(Map.of("private-key", 1));
    }

    @Test
    void leavesLookalikesAndCollectorPlaceholdersAlone() {
        String text = """
                tokenizer = AutoTokenizer.from_pretrained("bert-base") pad_token: <pad>
                MAX_TOKENS=512 num_tokens=5 scikit-learn==1.4.2 sk-learn-wrapper-for-something-long
                File "/home/<user>/train.py", line 3 on <host>
                PASSWORD=${DB_PASSWORD} API_TOKEN=%API_TOKEN% CLIENT_SECRET=***
                https://download.pytorch.org/whl/cu121 ssh://git@github.com/org/repo.git
                Created device /job:localhost/replica:0/task:0/device:GPU:0 with 4620 MB memory
                """;
        Map<String, Integer> counts = new TreeMap<>();
        assertThat(SecretRedactor.redact(text, counts)).isEqualTo(text);
        assertThat(counts).isEmpty();
    }

    @Test
    void aFileWithoutSecretsIsNotRewritten() throws IOException {
        Path in = dir.resolve("clean.log");
        Files.writeString(in, "RuntimeError: CUDA out of memory\n");
        Path out = dir.resolve("out");
        assertThat(SecretRedactor.redactFile(in, out).byKind()).isEmpty();
        assertThat(out).doesNotExist();
    }

    @Test
    void keepsEveryOtherByteOfCp1252AndUtf16Files() throws IOException {
        String token = "hf_" + random(ALNUM, 34);
        String text = "Caf\u00e9 r\u00e9sum\u00e9 HF_TOKEN=" + token + " \u00fcber\r\nline two \u00e9\n";
        String expected = "Caf\u00e9 r\u00e9sum\u00e9 HF_TOKEN=<redacted:huggingface-token> \u00fcber\r\nline two \u00e9\n";
        for (Charset cs : List.of(Charset.forName("windows-1252"), StandardCharsets.UTF_8)) {
            Path in = dir.resolve("t-" + cs.name());
            Files.write(in, text.getBytes(cs));
            Path out = dir.resolve("o-" + cs.name());
            assertThat(SecretRedactor.redactFile(in, out).byKind()).isEqualTo(Map.of("huggingface-token", 1));
            assertThat(Files.readAllBytes(out)).as(cs.name()).isEqualTo(expected.getBytes(cs));
        }
        // UTF-16LE with its byte order mark, as Windows tools write it
        Path in = dir.resolve("t-utf16");
        byte[] bom = {(byte) 0xFF, (byte) 0xFE};
        Files.write(in, concat(bom, text.getBytes(StandardCharsets.UTF_16LE)));
        Path out = dir.resolve("o-utf16");
        assertThat(SecretRedactor.redactFile(in, out).byKind()).isEqualTo(Map.of("huggingface-token", 1));
        assertThat(Files.readAllBytes(out)).isEqualTo(concat(bom, expected.getBytes(StandardCharsets.UTF_16LE)));
    }

    @Test
    void aGiantLineStaysBoundedAndItsSecretsStillGo() throws IOException {
        String token = "ghp_" + random(ALNUM, 36);
        StringBuilder b = new StringBuilder();
        while (b.length() < 3 * SecretRedactor.MAX_LINE) {
            b.append("word ").append(b.length() % 7 == 0 ? token + " " : "");
        }
        Path in = dir.resolve("giant");
        Files.writeString(in, b, StandardCharsets.ISO_8859_1);
        Path out = dir.resolve("giant-out");
        SecretRedactor.Counts counts = SecretRedactor.redactFile(in, out);
        assertThat(Files.readString(out, StandardCharsets.ISO_8859_1)).doesNotContain(token)
                .isEqualTo(b.toString().replace(token, "<redacted:github-token>"));
        assertThat(counts.byKind().get("github-token")).isEqualTo(countOf(b.toString(), token));
    }

    /**
     * On the real corpus (353 anonymised public files, no secrets in them): nothing is found, so every
     * hit would be a false positive; and with the seeded secrets appended to each real console log, all of
     * them go while the log's own bytes stay exactly as they were (real encodings, line ends, long lines).
     */
    @Test
    void onTheRealCorpusOnlySeededSecretsGo() throws IOException {
        assumeTrue(Files.isDirectory(CORPUS), "../shared/corpus is absent: corpus tests skipped");
        ArtifactSniffer sniffer = new ArtifactSniffer();
        List<Path> texts;
        try (Stream<Path> all = Files.walk(CORPUS)) {
            texts = all.filter(Files::isRegularFile)
                    .filter(p -> !p.toString().contains("/evtx/"))
                    .filter(p -> !p.getFileName().toString().endsWith(".gz") && !p.getFileName().toString().endsWith(".md"))
                    .sorted().toList();
        }
        assertThat(texts).hasSizeGreaterThan(200);
        Map<String, List<String>> falsePositives = new TreeMap<>();
        int logs = 0;
        for (Path file : texts) {
            ArtifactType type = sniffer.sniff(file.getFileName().toString(), file);
            if (type == ArtifactType.BINARY || type == ArtifactType.EVTX) {
                continue;
            }
            Path out = dir.resolve("r");
            Files.deleteIfExists(out);
            SecretRedactor.Counts counts = SecretRedactor.redactFile(file, out);
            if (!counts.byKind().isEmpty()) {
                falsePositives.put(CORPUS.relativize(file).toString(), diff(file, out));
            }
            if (file.getFileName().toString().equals("crash.log")) {
                logs++;
                byte[] original = Files.readAllBytes(file);
                List<Seed> seeds = seeds();
                StringBuilder tail = new StringBuilder("\n");
                seeds.forEach(seed -> tail.append(seed.line()).append('\n'));
                Path seeded = dir.resolve("seeded");
                Files.write(seeded, concat(original, tail.toString().getBytes(StandardCharsets.UTF_8)));
                Path redacted = dir.resolve("redacted");
                Files.deleteIfExists(redacted);
                assertThat(SecretRedactor.redactFile(seeded, redacted).total()).as(file.toString()).isEqualTo(seeds.size());
                byte[] result = Files.readAllBytes(redacted);
                assertThat(java.util.Arrays.copyOf(result, original.length)).as(file.toString()).isEqualTo(original);
                String text = new String(result, StandardCharsets.ISO_8859_1);
                seeds.forEach(seed -> assertThat(text).as(file.toString()).doesNotContain(seed.value()));
            }
        }
        assertThat(logs).isGreaterThan(50);
        assertThat(falsePositives).as("lines of the real corpus taken for secrets").isEmpty();
    }

    private static List<String> diff(Path a, Path b) throws IOException {
        List<String> x = Files.readAllLines(a, StandardCharsets.ISO_8859_1);
        List<String> y = Files.readAllLines(b, StandardCharsets.ISO_8859_1);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            if (!x.get(i).equals(y.get(i))) {
                out.add(y.get(i));
            }
        }
        return out;
    }

    private static long lines(Path p) throws IOException {
        byte[] b = Files.readAllBytes(p);
        long n = 0;
        for (byte x : b) {
            if (x == '\n') {
                n++;
            }
        }
        return n;
    }

    private static int countOf(String hay, String needle) {
        int n = 0;
        for (int i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
