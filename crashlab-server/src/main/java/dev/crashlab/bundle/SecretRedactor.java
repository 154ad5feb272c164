package dev.crashlab.bundle;

import dev.crashlab.parse.TextDecoding;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces known secret shapes in text by {@code <redacted:kind>} and counts what it removed, per kind.
 *
 * <p>What it finds: AWS access key ids and secret keys (also {@code aws configure set aws_secret_access_key <key>}
 * and {@code Secret access key: <key>}), Azure storage/service-bus keys in connection strings, Google API keys,
 * PEM private key blocks (also the one-line JSON form of a GCP service-account key and its {@code private_key_id}),
 * Hugging Face {@code hf_}, GitHub {@code ghp_/gho_/ghu_/ghs_/ghr_/github_pat_}, GitLab {@code glpat-} and its
 * siblings, npm, Replicate, Docker Hub, PyPI, Databricks, Google OAuth client secrets, Stripe live keys, SendGrid,
 * OpenAI/Anthropic {@code sk-} and Slack {@code xox?-} tokens, JWTs and {@code Bearer} tokens, the values of
 * {@code *_TOKEN}, {@code *_SECRET}, {@code *_API_KEY}, {@code *_PASSWORD}/{@code PASSWORD} (any case) assignments
 * ({@code =} or {@code :}, so YAML too), lower-case credential names ({@code wandb_api_key=}, {@code api_key:},
 * {@code access_token:}; not tokenizer settings such as {@code pad_token}), {@code .netrc} {@code password <value>},
 * {@code --password}/{@code --api-key}/{@code --token} arguments, {@code wandb.login(key=...)}, and credentials in URLs
 * ({@code scheme://user:pass@host}, where the password may hold {@code /} or {@code @}, and
 * {@code scheme://<token>@host}). The {@code <user>}/{@code <host>} placeholders the collectors write are left alone.
 *
 * <p>Fast path: a line is shown to the rules only if it holds one of their literal anchors (see
 * {@link #mayHoldSecret(char[], int, int)}); the rest are copied through from a bulk-read buffer, the whole lines
 * before the buffer's first anchor in one piece ({@link #linesBeforeAnchor}).
 *
 * <p>NOTE: streams line by line with lines capped at {@link #MAX_LINE} characters (a longer line is cut
 * at its last blank before the cap), so memory stays bounded; a secret that straddles such a cut of a
 * giant line can survive. Text is read byte-transparently (ISO-8859-1) unless it is UTF-16, so a file
 * is rewritten only where something was found, and every other byte stays as it was. Binary files are
 * the caller's to skip. Plain Java: the CLI and tests use it without a container.
 */
public final class SecretRedactor {

    /** Longest line handled in one piece, in characters. */
    static final int MAX_LINE = 64 * 1024;

    private static final String VALUE = "(\"[^\"\\r\\n]*\"|'[^'\\r\\n]*'|[^\\s\"',;&]+)";

    private record Rule(String kind, Pattern pattern, int group) {}

    /** Words after {@code password} that start a sentence about one, not a value ("Password for root:"). */
    private static final String NOT_A_VALUE = "(?!(?:for|is|was|and|or|the|to|of|in|not|required|incorrect|invalid|wrong|"
            + "authentication|changed|updated|must|should|will|cannot|can|expired|reset|policy|prompt|file|field)\\b)";

    // Specific shapes first, so an HF_TOKEN=hf_... line reads HF_TOKEN=<redacted:huggingface-token>.
    private static final List<Rule> RULES = List.of(
            new Rule("private-key", Pattern.compile(
                    "-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----"), 0),
            new Rule("gcp-private-key-id", Pattern.compile("\"private_key_id\"\\s*:\\s*\"([0-9a-fA-F]{32,64})\""), 1),
            new Rule("aws-access-key", Pattern.compile("\\b((?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[0-9A-Z]{16})\\b"), 1),
            // aws_secret_access_key=..., "aws configure set aws_secret_access_key <key>", "Secret access key: <key>"
            new Rule("aws-secret-key", Pattern.compile(
                    "(?i)(?:secret[_ ]?access[_ ]?key|aws_?secret(?:_?key)?)[\"']?(?:\\s*[=:]\\s*|\\s+)[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"), 1),
            new Rule("azure-key", Pattern.compile(
                    "(?i)\\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=([A-Za-z0-9+/%=_-]{16,})"), 1),
            new Rule("gcp-api-key", Pattern.compile("\\b(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])"), 1),
            new Rule("huggingface-token", Pattern.compile("\\b(hf_[A-Za-z0-9]{30,})\\b"), 1),
            new Rule("github-token", Pattern.compile("\\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\\b"), 1),
            new Rule("gitlab-token", Pattern.compile("(?<![A-Za-z0-9_-])(gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,})"), 1),
            new Rule("service-token", Pattern.compile("(?<![A-Za-z0-9_-])((?:npm_[A-Za-z0-9]{36}|r8_[A-Za-z0-9]{37}|dckr_pat_[A-Za-z0-9_-]{20,}"
                    + "|pypi-AgE[A-Za-z0-9_-]{50,}|dapi[0-9a-f]{32}|GOCSPX-[A-Za-z0-9_-]{24,}|(?:sk|rk)_live_[A-Za-z0-9]{20,}"
                    + "|SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}))(?![A-Za-z0-9_-])"), 1),
            new Rule("openai-key", Pattern.compile("(?<![A-Za-z0-9_-])(sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,})"), 1),
            new Rule("slack-token", Pattern.compile("\\b(xox[abposre]-[A-Za-z0-9-]{10,})"), 1),
            new Rule("jwt", Pattern.compile("(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,})"), 1),
            new Rule("bearer-token", Pattern.compile("(?i)\\bBearer\\s+([A-Za-z0-9._~+/-]{16,}=*)"), 1),
            // scheme://user:password@host, the password may hold '/' or '@' (the last '@' before the host counts);
            // a port (host:8080/...) is not a password
            new Rule("url-credentials", Pattern.compile(
                    "\\b[A-Za-z][A-Za-z0-9+.-]{1,20}://([^/\\s:@\"'<>]*:(?!\\d{1,5}(?:[/?#\\s]|$))[^\\s\"'<>]*?)"
                            + "@(?=[A-Za-z0-9.\\[\\]_-]+(?::\\d{1,5})?(?:[/?#\\s\"'<>]|$))"), 1),
            // a token as the URL's user name: https://<token>@github.com/...
            new Rule("url-credentials", Pattern.compile(
                    "\\b[A-Za-z][A-Za-z0-9+.-]{1,20}://([A-Za-z0-9_-]{20,})@"), 1),
            // .netrc: "machine h login u password p", or "password p" on a line of its own
            new Rule("password", Pattern.compile(
                    "(?i)(?:^\\s*|\\b(?:login|machine|account)\\s+\\S+\\s+)password\\s+" + NOT_A_VALUE + "(\\S+)"), 1),
            // command-line flags: --password x, --api-key=x, --token x
            new Rule("password", Pattern.compile(
                    "(?i)(?<![A-Za-z0-9-])--(?:password|passwd|db-password)(?:=|\\s+)" + VALUE), 1),
            new Rule("token", Pattern.compile(
                    "(?i)(?<![A-Za-z0-9-])--(?:api[-_]?key|token|access[-_]?token|auth[-_]?token|secret|client[-_]?secret|"
                            + "secret[-_]?key|hf[-_]?token|wandb[-_]?key)(?:=|\\s+)" + VALUE), 1),
            // wandb.login(key="..."), huggingface_hub.login(token="...")
            new Rule("token", Pattern.compile("(?i)\\.login\\([^)]*?\\b(?:key|token)\\s*=\\s*" + VALUE), 1),
            new Rule("password", Pattern.compile(
                    "(?i)(?<![A-Za-z0-9])(?:[A-Za-z0-9_.-]*[_.-])?(?:password|passwd|pwd)[\"']?\\s*[=:]\\s*" + VALUE), 1),
            new Rule("token", Pattern.compile(
                    "(?<![A-Za-z0-9_])(?:[A-Z][A-Z0-9_]*_)?(?:TOKEN|API_KEY|ACCESS_KEY|AUTH_KEY)[\"']?\\s*[=:]\\s*" + VALUE), 1),
            // lower-case names that are credentials (wandb_api_key=, api_key:, access_token:), not tokenizer settings
            // (pad_token: [PAD])
            new Rule("token", Pattern.compile(
                    "(?i)(?<![A-Za-z0-9_])(?:[A-Za-z][A-Za-z0-9_]*[_-])?(?:api[_-]?key|access[_-]?key|auth[_-]?key|kaggle[_-]?key|"
                            + "(?:access|auth|api|refresh|id|session|bearer|oauth|bot|hf|wandb|github|gitlab|slack|openai)[_-]?token)"
                            + "[\"']?\\s*[=:]\\s*" + VALUE), 1),
            new Rule("secret", Pattern.compile(
                    "(?<![A-Za-z0-9_])(?:[A-Z][A-Z0-9_]*_)?(?:SECRET|SECRET_KEY|PRIVATE_KEY)[\"']?\\s*[=:]\\s*" + VALUE), 1),
            new Rule("secret", Pattern.compile(
                    "(?i)(?<![A-Za-z0-9_])(?:[A-Za-z][A-Za-z0-9_]*[_-])?(?:client[_-]?secret|secret[_-]?key|api[_-]?secret)"
                            + "[\"']?\\s*[=:]\\s*" + VALUE), 1));

    private static final Pattern PEM_BEGIN = Pattern.compile("-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----");
    private static final Pattern PEM_END = Pattern.compile("-----END [A-Z0-9 ]*PRIVATE KEY-----");

    /** What was removed, per kind (sorted by kind); empty when nothing was found. */
    public record Counts(Map<String, Integer> byKind) {
        public Counts {
            byKind = Collections.unmodifiableMap(new TreeMap<>(byKind));
        }

        /** Returns the number of secrets removed, all kinds together. */
        public int total() {
            return byKind.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    private final Map<String, Integer> counts = new TreeMap<>();
    private boolean inPemBlock;

    /**
     * Redacts the text file {@code source} into {@code target}, in the file's own encoding.
     *
     * @return the counts; when empty, {@code target} was not written (nothing to change)
     */
    public static Counts redactFile(Path source, Path target) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(source)) {
            head = in.readNBytes(64 * 1024);
        }
        TextDecoding.Detected d = TextDecoding.detect(head, head.length);
        boolean utf16 = d.charset().equals(StandardCharsets.UTF_16LE) || d.charset().equals(StandardCharsets.UTF_16BE);
        // ISO-8859-1 maps every byte to one char and back: UTF-8 and CP1252 text round-trips unchanged.
        Charset charset = utf16 ? d.charset() : StandardCharsets.ISO_8859_1;
        SecretRedactor r = new SecretRedactor();
        // First pass counts only, so a file without secrets is never rewritten.
        try (Reader in = reader(source, charset, d.bomLength())) {
            r.run(in, Writer.nullWriter());
        }
        if (r.counts.isEmpty()) {
            return new Counts(Map.of());
        }
        r = new SecretRedactor();
        byte[] bom = java.util.Arrays.copyOf(head, Math.min(d.bomLength(), head.length));
        try (java.io.OutputStream raw = Files.newOutputStream(target)) {
            raw.write(bom);
            try (Reader in = reader(source, charset, d.bomLength());
                    Writer out = new java.io.BufferedWriter(new OutputStreamWriter(raw, charset), 1 << 16)) {
                r.run(in, out);
            }
        }
        return new Counts(r.counts);
    }

    /** Bytes of a file {@link #mostlyText} looks at. */
    static final int TEXT_SAMPLE = 1 << 20;

    /**
     * Tells whether a file classed binary is text with a few control bytes after all (a log with one NUL, a
     * terminal capture): in its first {@link #TEXT_SAMPLE} bytes at most one in a hundred is a control byte other than
     * tab, line ends, form feed, backspace and escape. Such files are redacted like text (byte-transparently); real
     * binaries (archives, images, weights: about one byte in eight below 0x20) are not.
     */
    public static boolean mostlyText(Path file) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(TEXT_SAMPLE);
        }
        if (head.length == 0) {
            return false;
        }
        int control = 0;
        for (byte b : head) {
            int v = b & 0xFF;
            if ((v < 0x20 && v != '\t' && v != '\n' && v != '\r' && v != '\f' && v != '\b' && v != 0x1B) || v == 0x7F) {
                control++;
            }
        }
        return control * 100L <= head.length;
    }

    private static Reader reader(Path file, Charset charset, int skip) throws IOException {
        InputStream in = Files.newInputStream(file);
        in.skipNBytes(skip);
        // no BufferedReader: run() reads in bulk into its own buffer
        return new InputStreamReader(new java.io.BufferedInputStream(in, 1 << 16), charset.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE));
    }

    /** Redacts a short text held in memory (e.g. a bundle's notes); adds to {@code into}. */
    public static String redact(String text, Map<String, Integer> into) {
        SecretRedactor r = new SecretRedactor();
        java.io.StringWriter out = new java.io.StringWriter();
        try {
            r.run(new java.io.StringReader(text), out);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // in-memory readers do not fail
        }
        r.counts.forEach((k, v) -> into.merge(k, v, Integer::sum));
        return out.toString();
    }

    private void run(Reader in, Writer out) throws IOException {
        // Bulk reads into a buffer that always holds a whole line (up to MAX_LINE); a line without any rule's
        // literal anchor is written straight from the buffer, never turned into a String or shown to a regex.
        char[] buf = new char[Math.max(2 * MAX_LINE, 1 << 17)];
        int start = 0;
        int end = 0;
        int scanned = 0; // buf[start, scanned) holds no '\n'
        boolean eof = false;
        boolean inGiantLine = false; // the line being emitted was cut at MAX_LINE: no whole line to look past yet
        while (true) {
            if (!inPemBlock && !inGiantLine && scanned == start) {
                // whole lines before the first anchor in the buffer go out in one piece, never looked at line by line
                int bulk = linesBeforeAnchor(buf, start, end);
                if (bulk > start) {
                    out.write(buf, start, bulk - start);
                    start = bulk;
                    scanned = start;
                    continue;
                }
            }
            int nl = -1;
            int limit = Math.min(end, start + MAX_LINE);
            for (int i = scanned; i < limit; i++) {
                if (buf[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            if (nl >= 0) {
                inGiantLine = false;
                emit(buf, start, nl + 1, out);
                start = nl + 1;
                scanned = start;
                continue;
            }
            scanned = limit;
            if (end - start >= MAX_LINE) {
                // a giant line: cut it at its last blank before the cap
                int cut = start + MAX_LINE;
                for (int i = start + MAX_LINE - 1; i >= start; i--) {
                    if (buf[i] == ' ' || buf[i] == '\t') {
                        cut = i + 1;
                        break;
                    }
                }
                inGiantLine = true;
                emit(buf, start, cut, out);
                start = cut;
                scanned = start;
                continue;
            }
            if (eof) {
                if (end > start) {
                    emit(buf, start, end, out);
                }
                return;
            }
            if (start > 0) {
                System.arraycopy(buf, start, buf, 0, end - start);
                end -= start;
                scanned -= start;
                start = 0;
            }
            int n = in.read(buf, end, buf.length - end);
            if (n < 0) {
                eof = true;
            } else {
                end += n;
            }
        }
    }

    private void emit(char[] buf, int from, int to, Writer out) throws IOException {
        if (inPemBlock || mayHoldSecret(buf, from, to)) {
            out.write(redactLine(new String(buf, from, to - from)));
        } else {
            out.write(buf, from, to - from);
        }
    }

    /**
     * Returns where the first line of {@code c[from, to)} that may hold a secret starts, or the end of the last whole
     * line there when none may: the lines before it hold no anchor, so {@link #emit} would write each unchanged.
     *
     * <p>NOTE: an anchor is looked for within its own line (up to its {@code '\n'}), never cut at {@link #MAX_LINE}: a
     * cut piece's anchors are a subset of its whole line's, so a line this lets through may still reach the rules, but
     * no line it passes over would. Amortised one look at each character.
     */
    static int linesBeforeAnchor(char[] c, int from, int to) {
        int lineStart = from;
        int lineEnd = -1; // the '\n' that ends the line holding position i, once looked for
        for (int i = from; i + 1 < to; i++) {
            char a = c[i];
            if (a == '\n') {
                lineStart = i + 1;
                continue;
            }
            char b = c[i + 1];
            if ((a | b) < 128 && FIRST_TWO[a << 7 | b]) {
                if (lineEnd < i) {
                    lineEnd = indexOf(c, i, to, '\n');
                    if (lineEnd < 0) {
                        break; // the rest is no whole line
                    }
                }
                if (anchorAt(c, i, lineEnd + 1)) {
                    return lineStart;
                }
            }
        }
        // no anchor in a whole line: everything up to the last line end goes
        for (int i = to - 1; i >= from; i--) {
            if (c[i] == '\n') {
                return i + 1;
            }
        }
        return from;
    }

    /** Tells whether {@code s} may hold a secret (see {@link #mayHoldSecret(char[], int, int)}). */
    static boolean mayHoldSecret(CharSequence s) {
        char[] c = s.toString().toCharArray();
        return mayHoldSecret(c, 0, c.length);
    }

    /**
     * The prefilter: false only when no rule can match in {@code c[from, to)}, because the line holds none of the
     * literals every match of some rule contains. Per rule: {@code -----BEGIN} (private key), {@code private_key_id},
     * {@code AKIA}/{@code ASIA}/{@code ABIA}/{@code ACCA}/{@code AIDA}/{@code AROA}, {@code AIza}, {@code secret} in any
     * case (both AWS secret-key names, {@code SECRET}, client secrets), {@code key}/{@code token} in any case followed by
     * an optional quote, blanks and {@code =} or {@code :} (Azure, API keys, tokens), {@code sig=}/{@code signature=},
     * {@code hf_}, {@code gh?_}/{@code github_pat_}, {@code gl...-} (GitLab), {@code npm_}, {@code r8_},
     * {@code dckr_pat_}, {@code pypi-}, {@code dapi}, {@code GOCSPX-}, {@code sk_live_}/{@code rk_live_}, {@code SG.},
     * {@code sk-}, {@code xox}, {@code eyJ} (JWTs), {@code bearer} in any case, {@code ://} with an {@code @} (URL
     * credentials), {@code passw}/{@code pwd} in any case, {@code --} and a letter (command-line flags),
     * {@code .login(}, {@code _KEY}. The rules' case-insensitive parts fold ASCII only, as {@code (?i)} does, so folding
     * ASCII here suffices.
     */
    static boolean mayHoldSecret(char[] c, int from, int to) {
        // every anchor is at least two characters long: a table of their first two rejects most positions at once
        for (int i = from; i + 1 < to; i++) {
            char a = c[i];
            char b = c[i + 1];
            if ((a | b) < 128 && FIRST_TWO[a << 7 | b] && anchorAt(c, i, to)) {
                return true;
            }
        }
        return false;
    }

    /** The first two characters of every anchor (both cases of the case-insensitive ones), as {@code a << 7 | b}. */
    private static final boolean[] FIRST_TWO = new boolean[128 * 128];

    static {
        for (String exact : List.of("--", "pr", "AK", "AS", "AB", "AC", "AI", "AR", "sk", "hf", "gh", "gi", "xo", "_K", ":/",
                "gl", "np", "r8", "dc", "py", "da", "GO", "rk", "SG", "ey", ".l")) {
            FIRST_TWO[exact.charAt(0) << 7 | exact.charAt(1)] = true;
        }
        for (String folded : List.of("pa", "pw", "se", "si", "ke", "to", "be")) {
            for (char a : new char[] {folded.charAt(0), Character.toUpperCase(folded.charAt(0))}) {
                for (char b : new char[] {folded.charAt(1), Character.toUpperCase(folded.charAt(1))}) {
                    FIRST_TWO[a << 7 | b] = true;
                }
            }
        }
    }

    /** Tells whether an anchor starts at {@code c[i]}. */
    private static boolean anchorAt(char[] c, int i, int to) {
        switch (c[i]) {
            case '-' -> {
                // a PEM block, or a command-line flag (--password x, --api-key=x)
                if (at(c, i, to, "-----BEGIN") || i + 2 < to && c[i + 1] == '-' && Character.isLetter(c[i + 2])) {
                    return true;
                }
            }
            case '.' -> {
                if (at(c, i, to, ".login(")) {
                    return true;
                }
            }
            case 'e' -> {
                if (at(c, i, to, "eyJ")) {
                    return true;
                }
            }
            case 'b', 'B' -> {
                if (atFolded(c, i, to, "bearer")) {
                    return true;
                }
            }
            case 'n' -> {
                if (at(c, i, to, "npm_")) {
                    return true;
                }
            }
            case 'r' -> {
                if (at(c, i, to, "r8_") || at(c, i, to, "rk_live_")) {
                    return true;
                }
            }
            case 'd' -> {
                if (at(c, i, to, "dckr_pat_") || at(c, i, to, "dapi")) {
                    return true;
                }
            }
            case 'G' -> {
                if (at(c, i, to, "GOCSPX-")) {
                    return true;
                }
            }
            case 'S' -> {
                if (at(c, i, to, "SG.") || atFolded(c, i, to, "secret") || atFolded(c, i, to, "sig=")
                        || atFolded(c, i, to, "signature=")) {
                    return true;
                }
            }
            case 'p', 'P' -> {
                if (at(c, i, to, "private_key_id") || atFolded(c, i, to, "passw") || atFolded(c, i, to, "pwd")
                        || at(c, i, to, "pypi-")) {
                    return true;
                }
            }
            case 'A' -> {
                if (i + 4 <= to && isAwsPrefix(c[i + 1], c[i + 2], c[i + 3]) || at(c, i, to, "AIza")) {
                    return true;
                }
            }
            case 's' -> {
                if (atFolded(c, i, to, "secret") || atFolded(c, i, to, "sig=") || atFolded(c, i, to, "signature=")
                        || at(c, i, to, "sk-") || at(c, i, to, "sk_live_")) {
                    return true;
                }
            }
            case 'k', 'K' -> {
                // key=, api_key: ..., "key": (any case)
                if (atFolded(c, i, to, "key") && separatorAfter(c, i + 3, to)) {
                    return true;
                }
            }
            case 't', 'T' -> {
                // TOKEN=, access_token: ... (any case)
                if (atFolded(c, i, to, "token") && separatorAfter(c, i + 5, to)) {
                    return true;
                }
            }
            case 'h' -> {
                if (at(c, i, to, "hf_")) {
                    return true;
                }
            }
            case 'g' -> {
                if (i + 4 <= to && c[i + 1] == 'h' && c[i + 3] == '_' && "pousr".indexOf(c[i + 2]) >= 0
                        || at(c, i, to, "github_pat_") || at(c, i, to, "gl") && indexOf(c, i + 2, Math.min(to, i + 6), '-') >= 0) {
                    return true;
                }
            }
            case 'x' -> {
                if (at(c, i, to, "xox")) {
                    return true;
                }
            }
            case '_' -> {
                if (at(c, i, to, "_KEY")) {
                    return true;
                }
            }
            case ':' -> {
                if (at(c, i, to, "://") && indexOf(c, i + 3, to, '@') >= 0) {
                    return true;
                }
            }
            default -> {
                // not the first character of any anchor
            }
        }
        return false;
    }

    /** Tells whether {@code c[i]} starts an assignment: an optional quote, blanks, then {@code =} or {@code :}. */
    private static boolean separatorAfter(char[] c, int i, int to) {
        int k = i;
        if (k < to && (c[k] == '"' || c[k] == '\'')) {
            k++;
        }
        while (k < to && (c[k] == ' ' || c[k] == '\t')) {
            k++;
        }
        return k < to && (c[k] == '=' || c[k] == ':');
    }

    private static boolean isAwsPrefix(char a, char b, char c) {
        // AKIA ASIA ABIA ACCA AIDA AROA, after the 'A'
        return switch (a) {
            case 'K', 'S', 'B' -> b == 'I' && c == 'A';
            case 'C' -> b == 'C' && c == 'A';
            case 'I' -> b == 'D' && c == 'A';
            case 'R' -> b == 'O' && c == 'A';
            default -> false;
        };
    }

    private static boolean at(char[] c, int i, int to, String literal) {
        if (i + literal.length() > to) {
            return false;
        }
        for (int k = 0; k < literal.length(); k++) {
            if (c[i + k] != literal.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** Like {@link #at} with ASCII letters compared in either case; {@code lower} is lower case. */
    private static boolean atFolded(char[] c, int i, int to, String lower) {
        if (i + lower.length() > to) {
            return false;
        }
        for (int k = 0; k < lower.length(); k++) {
            char x = c[i + k];
            if (x >= 'A' && x <= 'Z') {
                x = (char) (x + ('a' - 'A'));
            }
            if (x != lower.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(char[] c, int from, int to, char x) {
        for (int i = from; i < to; i++) {
            if (c[i] == x) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Redacts lines (each with its terminator) in order with every rule, no prefilter, one redactor for all (for tests
     * that check the prefilter drops nothing); adds to {@code into}.
     */
    static String redactEveryLineForTest(Iterable<String> lines, Map<String, Integer> into) {
        SecretRedactor r = new SecretRedactor();
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            out.append(r.redactLine(line));
        }
        r.counts.forEach((k, v) -> into.merge(k, v, Integer::sum));
        return out.toString();
    }

    /** Redacts one line (with its terminator, if any). */
    private String redactLine(String line) {
        if (inPemBlock) {
            Matcher end = PEM_END.matcher(line);
            if (!end.find()) {
                return lineEnd(line); // the key's body: dropped, the line kept so line numbers stay
            }
            inPemBlock = false;
            line = line.substring(end.end());
        }
        for (Rule rule : RULES) {
            line = apply(rule, line);
        }
        Matcher begin = PEM_BEGIN.matcher(line);
        if (begin.find()) {
            // a block that does not end on this line: drop from its BEGIN marker to the END line
            inPemBlock = true;
            count("private-key");
            return line.substring(0, begin.start()) + "<redacted:private-key>" + lineEnd(line);
        }
        return line;
    }

    private String apply(Rule rule, String line) {
        Matcher m = rule.pattern().matcher(line);
        StringBuilder out = null;
        int last = 0;
        while (m.find()) {
            int g = rule.group();
            String value = m.group(g);
            if (!worthRedacting(rule.kind(), value)) {
                continue;
            }
            if (out == null) {
                out = new StringBuilder(line.length());
            }
            out.append(line, last, m.start(g)).append("<redacted:").append(rule.kind()).append('>');
            last = m.end(g);
            count(rule.kind());
        }
        if (out == null) {
            return line;
        }
        return out.append(line, last, line.length()).toString();
    }

    private static boolean worthRedacting(String kind, String value) {
        String bare = value.length() >= 2 && (value.charAt(0) == '"' || value.charAt(0) == '\'')
                ? value.substring(1, value.length() - 1) : value;
        if (bare.isEmpty() || bare.startsWith("<redacted:") || bare.startsWith("<user>") || bare.equals("<host>")) {
            return false;
        }
        if (kind.equals("openai-key")) {
            // "sk-" then a long hyphenated word is not a key: keys mix digits and letters
            return bare.chars().anyMatch(Character::isDigit) && bare.chars().anyMatch(Character::isLetter);
        }
        if (kind.equals("password") || kind.equals("token") || kind.equals("secret")) {
            // placeholders and references, not values: ${VAR}, %VAR%, $VAR, ***, <...>, null/none
            return !(bare.startsWith("$") || bare.startsWith("%") || bare.startsWith("<") || bare.matches("\\*+")
                    || bare.equalsIgnoreCase("null") || bare.equalsIgnoreCase("none") || bare.equalsIgnoreCase("true")
                    || bare.equalsIgnoreCase("false"));
        }
        return true;
    }

    private static String lineEnd(String line) {
        if (line.endsWith("\r\n")) {
            return "\r\n";
        }
        return line.endsWith("\n") ? "\n" : "";
    }

    private void count(String kind) {
        counts.merge(kind, 1, Integer::sum);
    }
}
