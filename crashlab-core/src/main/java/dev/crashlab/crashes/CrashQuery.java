package dev.crashlab.crashes;

import dev.crashlab.domain.DomainException;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The past-crash query language, parsed by hand into a small tree that {@link CrashIndex} turns into a Lucene query.
 *
 * <pre>
 * query   := or
 * or      := and ('OR' and)*
 * and     := unary+                      (side by side means AND; a bare 'AND' is allowed and ignored)
 * unary   := '-' unary | primary
 * primary := '(' or ')' | field ':' value | "quoted words" | word
 * value   := [op] (word | "quoted") where op is one of &lt; &lt;= &gt; &gt;= =
 * </pre>
 *
 * Fields: {@code cause exit gpu driver cuda cudnn tensorflow torch keras jax python os xid lib module exception status
 * confirmed uploaded uploader group} and the other signature kinds ({@code oom bugcheck whea display gpu-lost
 * kernel-power}). Version fields compare as versions ({@code driver:<470}, {@code tensorflow:>=2.10}) and take
 * prefixes ({@code cuda:11.*}, {@code tensorflow:2.10} is 2.10.x); {@code uploaded} takes ISO dates (UTC days);
 * term fields take exact values or {@code *} wildcards ({@code lib:cudnn*}); {@code gpu} matches part of the name.
 *
 * <p>NOTE: plain Java on purpose (the CLI and the benchmark parse queries without a container). Every refusal is a
 * {@link Invalid} that says the 0-based character position it is about.
 */
public final class CrashQuery {

    /** The most clauses a query may have. */
    public static final int MAX_CLAUSES = 256;
    /** The deepest nesting of parentheses and negations. */
    public static final int MAX_DEPTH = 16;

    /** A query the parser refuses, with the position (0-based character offset) it points at. */
    public static final class Invalid extends DomainException {
        private final int position;

        public Invalid(int position, String message) {
            super(Kind.INVALID, "bad-query", "Query not understood", message + " (at character " + (position + 1) + ")");
            this.position = position;
        }

        /** The 0-based character offset in the query the error is about. */
        public int position() {
            return position;
        }
    }

    /** How a field's values compare. */
    public enum FieldKind {
        /** Exact terms of the signature (lower case), with {@code *} wildcards. */
        TERM,
        /** A version: compares as numbers per component, a bare version is a prefix. */
        VERSION,
        /** Part of the GPU's name. */
        GPU,
        /** yes or no. */
        YESNO,
        /** A date (UTC day). */
        DATE,
        /**
         * Who uploaded the bundle: {@code me} (the caller) or a user name. The index does not hold uploaders: the
         * caller resolves these clauses to bundle ids first ({@link Parsed#resolveUploaders}); unresolved, they match
         * nothing.
         */
        UPLOADER,
        /** The bundle's group (a signature hash). */
        GROUP
    }

    /**
     * A field of the language: its name, how it compares and the signature kinds (for TERM) or version components
     * (for VERSION) it reads.
     */
    public record Field(String name, FieldKind kind, List<String> reads, String example) {}

    /** The fields, in the order the UI offers them. */
    public static final Map<String, Field> FIELDS;

    static {
        Map<String, Field> f = new LinkedHashMap<>();
        put(f, new Field("cause", FieldKind.TERM, List.of("cause"), "cause:cudnn-version-mismatch"));
        put(f, new Field("exit", FieldKind.TERM, List.of("exit"), "exit:0xC0000409"));
        put(f, new Field("gpu", FieldKind.GPU, List.of("gpu"), "gpu:\"RTX 3090\""));
        put(f, new Field("driver", FieldKind.VERSION, List.of("nvidia-driver"), "driver:<470"));
        put(f, new Field("cuda", FieldKind.VERSION, List.of("cuda-runtime", "cuda-toolkit"), "cuda:11.*"));
        put(f, new Field("cudnn", FieldKind.VERSION, List.of("cudnn"), "cudnn:8.1"));
        put(f, new Field("tensorflow", FieldKind.VERSION, List.of("tensorflow", "tensorflow-gpu"), "tensorflow:>=2.10"));
        put(f, new Field("torch", FieldKind.VERSION, List.of("torch"), "torch:2.*"));
        put(f, new Field("keras", FieldKind.VERSION, List.of("keras"), "keras:2.10"));
        put(f, new Field("jax", FieldKind.VERSION, List.of("jax"), "jax:0.4"));
        put(f, new Field("python", FieldKind.VERSION, List.of("python"), "python:3.10"));
        put(f, new Field("os", FieldKind.TERM, List.of("os"), "os:windows"));
        put(f, new Field("xid", FieldKind.TERM, List.of("xid"), "xid:79"));
        put(f, new Field("lib", FieldKind.TERM, List.of("lib"), "lib:zlibwapi.dll"));
        put(f, new Field("module", FieldKind.TERM, List.of("module"), "module:ucrtbase.dll"));
        put(f, new Field("exception", FieldKind.TERM, List.of("exception"), "exception:OSError"));
        put(f, new Field("status", FieldKind.TERM, List.of("status"), "status:STATUS_STACK_BUFFER_OVERRUN"));
        put(f, new Field("oom", FieldKind.TERM, List.of("oom"), "oom:host"));
        put(f, new Field("bugcheck", FieldKind.TERM, List.of("bugcheck"), "bugcheck:0x00000116"));
        put(f, new Field("whea", FieldKind.TERM, List.of("whea"), "whea:17"));
        put(f, new Field("display", FieldKind.TERM, List.of("display"), "display:4101"));
        put(f, new Field("gpu-lost", FieldKind.TERM, List.of("gpu-lost"), "gpu-lost:yes"));
        put(f, new Field("kernel-power", FieldKind.TERM, List.of("kernel-power"), "kernel-power:41"));
        put(f, new Field("confirmed", FieldKind.YESNO, List.of(), "confirmed:yes"));
        put(f, new Field("uploaded", FieldKind.DATE, List.of(), "uploaded:>2026-11-01"));
        put(f, new Field("uploader", FieldKind.UPLOADER, List.of(), "uploader:me"));
        put(f, new Field("group", FieldKind.GROUP, List.of(), "group:3f2a9c1b7d20"));
        FIELDS = java.util.Collections.unmodifiableMap(f);
    }

    private static void put(Map<String, Field> f, Field field) {
        f.put(field.name(), field);
    }

    /** Other names people type for a field. */
    private static final Map<String, String> ALIASES = Map.of("pytorch", "torch", "tf", "tensorflow",
            "nvidia-driver", "driver", "xid-error", "xid", "library", "lib", "exitcode", "exit");

    /** A comparison in a field value. */
    public enum Op { EQ, LT, LE, GT, GE }

    /** A node of a parsed query. */
    public sealed interface Node permits Words, Match, Bundles, Not, And, Or {}

    /**
     * The bundles a clause was resolved to outside the index (an {@code uploader:} clause: the bundles that user
     * uploaded, from the database).
     */
    public record Bundles(List<Long> ids, int position) implements Node {
        public Bundles {
            ids = List.copyOf(ids);
        }
    }

    /** Free words (the analyser splits them); {@code quoted} when they were written in quotes. */
    public record Words(String text, boolean quoted, int position) implements Node {}

    /**
     * A field clause.
     *
     * @param value the value as written (lower case for TERM, GPU and GROUP fields), without the operator
     * @param low for VERSION and DATE fields: the inclusive lower bound (Long.MIN_VALUE when open)
     * @param high for VERSION and DATE fields: the inclusive upper bound (Long.MAX_VALUE when open)
     */
    public record Match(Field field, Op op, String value, long low, long high, int position) implements Node {}

    public record Not(Node node) implements Node {}

    public record And(List<Node> nodes) implements Node {
        public And {
            nodes = List.copyOf(nodes);
        }
    }

    public record Or(List<Node> nodes) implements Node {
        public Or {
            nodes = List.copyOf(nodes);
        }
    }

    /** A parsed query: its tree and notes for the user (a field that cannot match yet). */
    public record Parsed(String text, Node root, List<String> notes) {
        public Parsed {
            notes = List.copyOf(notes);
        }

        /**
         * This query with every {@code uploader:} clause replaced by the bundles {@code uploads} gives for its value
         * ({@code me} already replaced by the caller's name when {@code me} is not null).
         */
        public Parsed resolveUploaders(String me, java.util.function.Function<String, List<Long>> uploads) {
            return new Parsed(text, resolve(root, me, uploads), notes);
        }

        private static Node resolve(Node n, String me, java.util.function.Function<String, List<Long>> uploads) {
            return switch (n) {
                case Match m when m.field().kind() == FieldKind.UPLOADER ->
                        new Bundles(uploads.apply(m.value().equalsIgnoreCase("me") && me != null ? me : m.value()), m.position());
                case Not x -> new Not(resolve(x.node(), me, uploads));
                case And a -> new And(a.nodes().stream().map(c -> resolve(c, me, uploads)).toList());
                case Or o -> new Or(o.nodes().stream().map(c -> resolve(c, me, uploads)).toList());
                default -> n;
            };
        }
    }

    // --- tokens

    private enum T { WORD, QUOTED, FIELD, LPAREN, RPAREN, MINUS, OR, AND, END }

    /** A token: for FIELD, {@code text} is the field name and {@code value}/{@code valueQuoted} its value. */
    private record Tok(T type, String text, int pos, String value, boolean valueQuoted, int valuePos) {}

    private final String src;
    private final List<Tok> toks;
    private final List<String> notes = new ArrayList<>();
    private int at;
    private int clauses;

    private CrashQuery(String src) {
        this.src = src;
        this.toks = lex(src);
    }

    /** Parses a query. */
    public static Parsed parse(String q) {
        if (q == null || q.isBlank()) {
            throw new Invalid(0, "the query is empty");
        }
        CrashQuery p = new CrashQuery(q);
        Node root = p.or(0);
        Tok end = p.peek();
        if (end.type() == T.RPAREN) {
            throw new Invalid(end.pos(), "')' has no matching '('");
        }
        if (end.type() != T.END) {
            throw new Invalid(end.pos(), "unexpected '" + end.text() + "'");
        }
        return new Parsed(q, root, p.notes);
    }

    private static boolean wordChar(char c) {
        return !Character.isWhitespace(c) && c != '(' && c != ')' && c != '"';
    }

    private static List<Tok> lex(String s) {
        List<Tok> out = new ArrayList<>();
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '(') {
                out.add(new Tok(T.LPAREN, "(", i++, null, false, 0));
            } else if (c == ')') {
                out.add(new Tok(T.RPAREN, ")", i++, null, false, 0));
            } else if (c == '"') {
                int end = closingQuote(s, i);
                out.add(new Tok(T.QUOTED, s.substring(i + 1, end), i, null, false, 0));
                i = end + 1;
            } else if (c == '-' && i + 1 < n && (wordChar(s.charAt(i + 1)) || s.charAt(i + 1) == '(' || s.charAt(i + 1) == '"')
                    && s.charAt(i + 1) != '-') {
                out.add(new Tok(T.MINUS, "-", i++, null, false, 0));
            } else {
                int start = i;
                while (i < n && wordChar(s.charAt(i)) && s.charAt(i) != ':') {
                    i++;
                }
                String head = s.substring(start, i);
                if (i < n && s.charAt(i) == ':' && head.matches("[A-Za-z][A-Za-z0-9_-]*")) {
                    int valuePos = ++i;
                    if (i < n && s.charAt(i) == '"') {
                        int end = closingQuote(s, i);
                        out.add(new Tok(T.FIELD, head, start, s.substring(i + 1, end), true, valuePos));
                        i = end + 1;
                    } else {
                        // an operator may come before a quoted value: uploaded:>"2026-11-01" is unusual but fine
                        int opEnd = i;
                        while (opEnd < n && "<>=".indexOf(s.charAt(opEnd)) >= 0) {
                            opEnd++;
                        }
                        if (opEnd < n && s.charAt(opEnd) == '"') {
                            int end = closingQuote(s, opEnd);
                            out.add(new Tok(T.FIELD, head, start, s.substring(i, opEnd) + s.substring(opEnd + 1, end), true, valuePos));
                            i = end + 1;
                        } else {
                            while (i < n && wordChar(s.charAt(i))) {
                                i++;
                            }
                            out.add(new Tok(T.FIELD, head, start, s.substring(valuePos, i), false, valuePos));
                        }
                    }
                } else {
                    while (i < n && wordChar(s.charAt(i))) {
                        i++;
                    }
                    String w = s.substring(start, i);
                    T type = w.equals("OR") || w.equals("||") ? T.OR : w.equals("AND") || w.equals("&&") ? T.AND : T.WORD;
                    out.add(new Tok(type, w, start, null, false, 0));
                }
            }
        }
        out.add(new Tok(T.END, "", n, null, false, 0));
        return out;
    }

    private static int closingQuote(String s, int open) {
        int end = s.indexOf('"', open + 1);
        if (end < 0) {
            throw new Invalid(open, "this quote is never closed");
        }
        return end;
    }

    private Tok peek() {
        return toks.get(at);
    }

    private Tok next() {
        return toks.get(at++);
    }

    private Node or(int depth) {
        List<Node> parts = new ArrayList<>();
        parts.add(and(depth));
        while (peek().type() == T.OR) {
            Tok or = next();
            if (startsClause(peek().type())) {
                parts.add(and(depth));
            } else {
                throw new Invalid(or.pos(), "'OR' needs something to search for on both sides");
            }
        }
        return parts.size() == 1 ? parts.getFirst() : new Or(parts);
    }

    private static boolean startsClause(T t) {
        return t == T.WORD || t == T.QUOTED || t == T.FIELD || t == T.LPAREN || t == T.MINUS;
    }

    private Node and(int depth) {
        List<Node> parts = new ArrayList<>();
        while (true) {
            Tok t = peek();
            if (t.type() == T.AND) {
                next();
                if (parts.isEmpty() || !startsClause(peek().type())) {
                    throw new Invalid(t.pos(), "'AND' needs something to search for on both sides");
                }
                continue;
            }
            if (!startsClause(t.type())) {
                break;
            }
            parts.add(unary(depth));
        }
        if (parts.isEmpty()) {
            Tok t = peek();
            if (t.type() == T.OR) {
                throw new Invalid(t.pos(), "'OR' needs something to search for on both sides");
            }
            if (t.type() == T.RPAREN) {
                throw new Invalid(t.pos(), at > 0 && toks.get(at - 1).type() == T.LPAREN ? "empty parentheses"
                        : "')' has no matching '('");
            }
            throw new Invalid(t.pos(), "expected something to search for");
        }
        return parts.size() == 1 ? parts.getFirst() : new And(parts);
    }

    private Node unary(int depth) {
        if (depth > MAX_DEPTH) {
            throw new Invalid(peek().pos(), "the query nests more than " + MAX_DEPTH + " levels deep");
        }
        Tok t = next();
        switch (t.type()) {
            case MINUS -> {
                if (!startsClause(peek().type()) || peek().type() == T.MINUS) {
                    throw new Invalid(t.pos(), "'-' must be followed by what to leave out");
                }
                return new Not(unary(depth + 1));
            }
            case LPAREN -> {
                if (peek().type() == T.RPAREN) {
                    throw new Invalid(t.pos(), "empty parentheses");
                }
                if (peek().type() == T.END) {
                    throw new Invalid(t.pos(), "'(' is never closed");
                }
                Node inner = or(depth + 1);
                if (peek().type() != T.RPAREN) {
                    throw new Invalid(t.pos(), "'(' is never closed");
                }
                next();
                return inner;
            }
            case WORD, QUOTED -> {
                count(t.pos());
                return new Words(t.text(), t.type() == T.QUOTED, t.pos());
            }
            case FIELD -> {
                count(t.pos());
                return field(t);
            }
            default -> throw new Invalid(t.pos(), "unexpected '" + t.text() + "'");
        }
    }

    private void count(int pos) {
        if (++clauses > MAX_CLAUSES) {
            throw new Invalid(pos, "the query has more than " + MAX_CLAUSES + " terms");
        }
    }

    private Node field(Tok t) {
        String name = t.text().toLowerCase(Locale.ROOT);
        name = ALIASES.getOrDefault(name, name);
        Field f = FIELDS.get(name);
        if (f == null) {
            throw new Invalid(t.pos(), "unknown field '" + t.text() + "' (known: " + String.join(", ", FIELDS.keySet())
                    + "); put text with a colon in quotes");
        }
        String raw = t.value();
        int vpos = t.valuePos();
        Op op = Op.EQ;
        int opLen = 0;
        if (raw.startsWith("<=")) {
            op = Op.LE;
            opLen = 2;
        } else if (raw.startsWith(">=")) {
            op = Op.GE;
            opLen = 2;
        } else if (raw.startsWith("<")) {
            op = Op.LT;
            opLen = 1;
        } else if (raw.startsWith(">")) {
            op = Op.GT;
            opLen = 1;
        } else if (raw.startsWith("=")) {
            opLen = 1;
        }
        String value = raw.substring(opLen).strip();
        int valueAt = vpos + (t.valueQuoted() && opLen == 0 ? 1 : opLen);
        if (value.isEmpty()) {
            throw new Invalid(Math.min(valueAt, src.length()), "'" + t.text() + ":' needs a value, e.g. " + f.example());
        }
        if (op != Op.EQ && f.kind() != FieldKind.VERSION && f.kind() != FieldKind.DATE) {
            throw new Invalid(vpos, "'" + f.name() + "' does not compare with < or >; only versions and dates do");
        }
        switch (f.kind()) {
            case VERSION -> {
                return version(f, op, value, valueAt, t.pos());
            }
            case DATE -> {
                return date(f, op, value, valueAt, t.pos());
            }
            case YESNO -> {
                String v = value.toLowerCase(Locale.ROOT);
                if (!Set.of("yes", "no", "true", "false").contains(v)) {
                    throw new Invalid(valueAt, "'" + f.name() + "' is yes or no");
                }
                return new Match(f, op, v.equals("yes") || v.equals("true") ? "yes" : "no", 0, 0, t.pos());
            }
            case UPLOADER -> {
                if (value.length() > 200) {
                    throw new Invalid(valueAt, "a user name is at most 200 characters");
                }
                return new Match(f, op, value, 0, 0, t.pos());
            }
            default -> {
                String v = value.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").replaceAll("\\*+", "*");
                if (v.chars().filter(c -> c == '*').count() > 3) {
                    throw new Invalid(valueAt, "a value may have at most 3 '*'");
                }
                if (v.length() > SignatureTerm.MAX_KEY) {
                    throw new Invalid(valueAt, "the value is longer than " + SignatureTerm.MAX_KEY + " characters");
                }
                if (f.kind() != FieldKind.GPU && v.replace("*", "").isEmpty()) {
                    throw new Invalid(valueAt, "'" + f.name() + ":*' matches everything; leave it out or name a value");
                }
                return new Match(f, op, v, 0, 0, t.pos());
            }
        }
    }

    /** Version components are packed into one sortable long: 3 components below the major, 0..999 each. */
    static final long[] SCALE = {1_000_000_000L, 1_000_000L, 1_000L, 1L};
    static final int MAX_MAJOR = 9_000_000;

    /**
     * A version as one sortable number: up to four components (major up to {@link #MAX_MAJOR}, the others 0..999),
     * missing ones count as 0; null when it does not start with a number.
     */
    public static Long versionNumber(String version) {
        if (version == null) {
            return null;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^v?(\\d{1,7})(?:\\.(\\d{1,3}))?(?:\\.(\\d{1,3}))?(?:\\.(\\d{1,3}))?")
                .matcher(version.strip());
        if (!m.find()) {
            return null;
        }
        long v = 0;
        for (int i = 0; i < 4; i++) {
            if (m.group(i + 1) != null) {
                v += Long.parseLong(m.group(i + 1)) * SCALE[i];
            }
        }
        return v;
    }

    private Node version(Field f, Op op, String value, int valueAt, int pos) {
        String v = value.endsWith(".*") ? value.substring(0, value.length() - 2) : value.equals("*") ? "" : value;
        if (v.isEmpty()) {
            throw new Invalid(valueAt, "'" + f.name() + ":*' matches everything; name a version such as " + f.example());
        }
        if (!v.matches("v?\\d{1,7}(\\.\\d{1,3}){0,3}")) {
            throw new Invalid(valueAt, "'" + value + "' is not a version; write it like " + f.example()
                    + " (numbers separated by dots, at most 4 parts)");
        }
        if (value.endsWith("*") && op != Op.EQ) {
            throw new Invalid(valueAt, "a version with '*' cannot also be compared with < or >");
        }
        int parts = v.split("\\.").length;
        long base = versionNumber(v);
        long prefixEnd = base + SCALE[parts - 1] - 1; // the last version sharing the written prefix
        long low;
        long high;
        switch (op) {
            case LT -> {
                low = Long.MIN_VALUE;
                high = base - 1;
            }
            case LE -> {
                low = Long.MIN_VALUE;
                high = prefixEnd;
            }
            case GT -> {
                low = prefixEnd + 1;
                high = Long.MAX_VALUE;
            }
            case GE -> {
                low = base;
                high = Long.MAX_VALUE;
            }
            default -> {
                low = base;
                high = prefixEnd;
            }
        }
        return new Match(f, op, v, low, high, pos);
    }

    private Node date(Field f, Op op, String value, int valueAt, int pos) {
        LocalDate day;
        try {
            day = LocalDate.parse(value.length() > 10 && value.charAt(10) == 'T' ? value.substring(0, 10) : value);
        } catch (DateTimeParseException e) {
            throw new Invalid(valueAt, "'" + value + "' is not a date; write it as YYYY-MM-DD, e.g. " + f.example());
        }
        long start = day.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        long end = day.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli() - 1;
        long low;
        long high;
        switch (op) {
            case LT -> {
                low = Long.MIN_VALUE;
                high = start - 1;
            }
            case LE -> {
                low = Long.MIN_VALUE;
                high = end;
            }
            case GT -> {
                low = end + 1;
                high = Long.MAX_VALUE;
            }
            case GE -> {
                low = start;
                high = Long.MAX_VALUE;
            }
            default -> {
                low = start;
                high = end;
            }
        }
        return new Match(f, op, day.toString(), low, high, pos);
    }
}
