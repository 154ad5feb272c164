package dev.crashlab.crashes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crashlab.crashes.CrashQuery.And;
import dev.crashlab.crashes.CrashQuery.FieldKind;
import dev.crashlab.crashes.CrashQuery.Invalid;
import dev.crashlab.crashes.CrashQuery.Match;
import dev.crashlab.crashes.CrashQuery.Node;
import dev.crashlab.crashes.CrashQuery.Not;
import dev.crashlab.crashes.CrashQuery.Op;
import dev.crashlab.crashes.CrashQuery.Or;
import dev.crashlab.crashes.CrashQuery.Words;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The query language's parser: each operator, each field, and where errors point. */
class CrashQueryTest {

    static Node root(String q) {
        return CrashQuery.parse(q).root();
    }

    static Match match(String q) {
        return (Match) root(q);
    }

    static long v(String version) {
        return CrashQuery.versionNumber(version);
    }

    static int errorAt(String q) {
        try {
            CrashQuery.parse(q);
        } catch (Invalid e) {
            assertThat(e.getMessage()).contains("at character " + (e.position() + 1));
            return e.position();
        }
        throw new AssertionError("parsed: " + q);
    }

    @Test
    void freeWordsAndQuotedWords() {
        assertThat(root("cudnn")).isEqualTo(new Words("cudnn", false, 0));
        assertThat(root("\"out of memory\"")).isEqualTo(new Words("out of memory", true, 0));
        And and = (And) root("cannot  load");
        assertThat(and.nodes()).containsExactly(new Words("cannot", false, 0), new Words("load", false, 8));
    }

    @Test
    void sideBySideIsAndAndTheWordAndIsAllowed() {
        assertThat(((And) root("a AND b")).nodes()).containsExactly(new Words("a", false, 0), new Words("b", false, 6));
        assertThat(((And) root("a && b")).nodes()).hasSize(2);
        assertThat(((And) root("os:windows AND xid:79")).nodes()).hasSize(2);
    }

    @Test
    void orBindsLooserThanAnd() {
        Or or = (Or) root("a b OR c");
        assertThat(or.nodes()).hasSize(2);
        assertThat(or.nodes().get(0)).isInstanceOf(And.class);
        assertThat(or.nodes().get(1)).isEqualTo(new Words("c", false, 7));
        assertThat(root("a or b")).isInstanceOf(And.class); // only upper-case OR is the operator
    }

    @Test
    void minusNegatesAWordAFieldOrAGroup() {
        assertThat(root("-cudnn")).isEqualTo(new Not(new Words("cudnn", false, 1)));
        assertThat(((Not) root("-os:windows")).node()).isInstanceOf(Match.class);
        assertThat(((Not) root("-(a OR b)")).node()).isInstanceOf(Or.class);
        // a dash inside a word is part of it
        assertThat(match("cause:cudnn-version-mismatch").value()).isEqualTo("cudnn-version-mismatch");
        assertThat(root("tf-gpu")).isEqualTo(new Words("tf-gpu", false, 0));
    }

    @Test
    void parenthesesGroup() {
        And and = (And) root("(xid:79 OR xid:48) os:linux");
        assertThat(and.nodes().get(0)).isInstanceOf(Or.class);
        assertThat(((Or) and.nodes().get(0)).nodes()).hasSize(2);
    }

    @Test
    void termFieldsAreLowerCaseExactValues() {
        assertThat(match("cause:cudnn-version-mismatch").field().reads()).containsExactly("cause");
        assertThat(match("exit:0xC0000409").value()).isEqualTo("0xc0000409");
        assertThat(match("os:Windows").value()).isEqualTo("windows");
        assertThat(match("xid:79").value()).isEqualTo("79");
        assertThat(match("lib:zlibwapi.dll").value()).isEqualTo("zlibwapi.dll");
        assertThat(match("lib:cudnn**").value()).isEqualTo("cudnn*");
        assertThat(match("module:ucrtbase.dll").field().reads()).containsExactly("module");
        assertThat(match("exception:OSError").value()).isEqualTo("oserror");
        assertThat(match("status:STATUS_STACK_BUFFER_OVERRUN").value()).isEqualTo("status_stack_buffer_overrun");
        assertThat(match("oom:host").field().name()).isEqualTo("oom");
        assertThat(match("gpu-lost:yes").field().name()).isEqualTo("gpu-lost");
        assertThat(match("Library:x.dll").field().name()).isEqualTo("lib"); // alias, any case
    }

    @Test
    void gpuTakesQuotedNames() {
        Match m = match("gpu:\"RTX 3090\"");
        assertThat(m.field().kind()).isEqualTo(FieldKind.GPU);
        assertThat(m.value()).isEqualTo("rtx 3090");
        assertThat(match("gpu:A100").value()).isEqualTo("a100");
    }

    @ParameterizedTest
    @CsvSource({
        // query, low, high (versions; MIN/MAX for open ends)
        "driver:<470, MIN, 469.999.999.999",
        "driver:<=470, MIN, 470.999.999.999",
        "driver:>470, 471, MAX",
        "driver:>=470.5, 470.5, MAX",
        "driver:470, 470, 470.999.999.999",
        "driver:=470.82, 470.82, 470.82.999.999",
        "cuda:11.*, 11, 11.999.999.999",
        "tensorflow:>=2.10, 2.10, MAX",
        "tensorflow:2.10, 2.10, 2.10.999.999",
        "torch:<2, MIN, 1.999.999.999",
        "python:3.10.4, 3.10.4, 3.10.4.999",
    })
    void versionsCompareAsVersions(String q, String low, String high) {
        Match m = match(q);
        assertThat(m.field().kind()).isEqualTo(FieldKind.VERSION);
        assertThat(m.low()).isEqualTo(low.equals("MIN") ? Long.MIN_VALUE : v(low));
        assertThat(m.high()).isEqualTo(high.equals("MAX") ? Long.MAX_VALUE : v(high));
    }

    @Test
    void versionNumbersOrderLikeVersions() {
        assertThat(v("2.9")).isLessThan(v("2.10"));
        assertThat(v("2.10")).isLessThan(v("2.10.1"));
        assertThat(v("470.82")).isLessThan(v("471"));
        assertThat(v("11.8")).isLessThan(v("12.0"));
        assertThat(v("v1.2")).isEqualTo(v("1.2"));
        assertThat(CrashQuery.versionNumber("unknown")).isNull();
        assertThat(match("cuda:11.*").field().reads()).containsExactly("cuda-runtime", "cuda-toolkit");
        assertThat(match("tensorflow:2.10").field().reads()).containsExactly("tensorflow", "tensorflow-gpu");
    }

    @Test
    void uploadedTakesDaysInUtc() {
        long day = LocalDate.parse("2026-11-01").atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        long next = day + 86_400_000L;
        Match gt = match("uploaded:>2026-11-01");
        assertThat(gt.low()).isEqualTo(next);
        assertThat(gt.high()).isEqualTo(Long.MAX_VALUE);
        Match ge = match("uploaded:>=2026-11-01");
        assertThat(ge.low()).isEqualTo(day);
        Match lt = match("uploaded:<2026-11-01");
        assertThat(lt.high()).isEqualTo(day - 1);
        Match le = match("uploaded:<=2026-11-01");
        assertThat(le.high()).isEqualTo(next - 1);
        Match on = match("uploaded:2026-11-01");
        assertThat(on.low()).isEqualTo(day);
        assertThat(on.high()).isEqualTo(next - 1);
        assertThat(match("uploaded:>2026-11-01T10:00:00Z").low()).isEqualTo(next);
    }

    @Test
    void confirmedIsYesOrNo() {
        assertThat(match("confirmed:yes").value()).isEqualTo("yes");
        assertThat(match("confirmed:true").value()).isEqualTo("yes");
        assertThat(match("confirmed:no").value()).isEqualTo("no");
    }

    @Test
    void uploaderResolvesToTheBundlesThatUserUploaded() {
        CrashQuery.Parsed p = CrashQuery.parse("uploader:me cudnn -uploader:bob");
        assertThat(((And) p.root()).nodes().get(0)).isInstanceOf(Match.class);
        assertThat(p.notes()).isEmpty();
        java.util.Map<String, List<Long>> uploads = java.util.Map.of("alice", List.of(1L, 2L), "bob", List.of(3L));
        CrashQuery.Parsed resolved = p.resolveUploaders("alice", name -> uploads.getOrDefault(name, List.of()));
        List<CrashQuery.Node> nodes = ((And) resolved.root()).nodes();
        assertThat(nodes.get(0)).isEqualTo(new CrashQuery.Bundles(List.of(1L, 2L), 0));
        assertThat(nodes.get(1)).isInstanceOf(Words.class);
        assertThat(((CrashQuery.Not) nodes.get(2)).node()).isEqualTo(new CrashQuery.Bundles(List.of(3L), 19));
        // no caller: "me" is looked up as written (the service gives no bundles for it)
        CrashQuery.Parsed anonymous = CrashQuery.parse("uploader:me").resolveUploaders(null, name -> uploads.getOrDefault(name, List.of()));
        assertThat(anonymous.root()).isEqualTo(new CrashQuery.Bundles(List.of(), 0));
    }

    @Test
    void operatorsOnlyWhereThingsCompare() {
        assertThat(match("driver:>=470").op()).isEqualTo(Op.GE);
        assertThat(errorAt("exit:>1")).isEqualTo(5);
        assertThat(errorAt("os:<windows")).isEqualTo(3);
    }

    @Test
    void errorsPointAtTheirPosition() {
        assertThat(errorAt("cudnn \"out of")).isEqualTo(6);          // unclosed quote
        assertThat(errorAt("a (b OR c")).isEqualTo(2);               // unclosed parenthesis
        assertThat(errorAt("a b) c")).isEqualTo(3);                  // unmatched ')'
        assertThat(errorAt("a ()")).isEqualTo(2);                    // empty parentheses
        assertThat(errorAt("a OR")).isEqualTo(2);                    // OR without a right side
        assertThat(errorAt("OR a")).isEqualTo(0);                    // OR without a left side
        assertThat(errorAt("a AND")).isEqualTo(2);
        assertThat(errorAt("x gup:rtx")).isEqualTo(2);               // unknown field
        assertThat(errorAt("exit: x")).isEqualTo(5);                 // field without a value
        assertThat(errorAt("driver:<")).isEqualTo(8);
        assertThat(errorAt("driver:abc")).isEqualTo(7);              // not a version
        assertThat(errorAt("tensorflow:>=2.x")).isEqualTo(13);
        assertThat(errorAt("uploaded:>2026-13-01")).isEqualTo(10);   // not a date
        assertThat(errorAt("confirmed:maybe")).isEqualTo(10);
        assertThat(errorAt("lib:*")).isEqualTo(4);                   // matches everything
        assertThat(errorAt("-(a")).isEqualTo(1);
        assertThat(root("a - b")).isInstanceOf(And.class);           // a lone '-' is a word (the analyser drops it)
    }

    @Test
    void emptyAndTooDeepQueriesAreRefused() {
        assertThat(errorAt("   ")).isZero();
        assertThat(errorAt("(".repeat(40) + "a" + ")".repeat(40))).isGreaterThanOrEqualTo(CrashQuery.MAX_DEPTH);
        assertThat(errorAt("a ".repeat(CrashQuery.MAX_CLAUSES + 1))).isEqualTo(2 * CrashQuery.MAX_CLAUSES);
    }

    @Test
    void colonsInsideWordsStayText() {
        assertThat(root("12:30:01")).isEqualTo(new Words("12:30:01", false, 0));
        assertThat(root("\"C:\\Windows\\x.dll\"")).isInstanceOf(Words.class);
    }

    /** Random strings from the query alphabet either parse or are refused with a position inside the query. */
    @Test
    void randomQueriesParseOrPointInsideTheQuery() {
        Random r = new Random(14);
        String[] pieces = {"cause:", "exit:", "gpu:", "driver:", "cuda:", "tensorflow:", "os:", "xid:", "lib:", "confirmed:",
            "uploaded:", "uploader:", "foo:", "\"", "(", ")", "-", " OR ", " AND ", "<", ">=", "=", "*", ".*", "2.10", "470",
            "yes", "windows", "RTX 3090", "2026-11-01", " ", ":", "0xC0000409", "zlibwapi.dll", "é", "\u0000", "\\", "?"};
        for (int n = 0; n < 20_000; n++) {
            StringBuilder sb = new StringBuilder();
            int len = 1 + r.nextInt(12);
            for (int i = 0; i < len; i++) {
                sb.append(pieces[r.nextInt(pieces.length)]);
            }
            String q = sb.toString();
            try {
                CrashQuery.parse(q);
            } catch (Invalid e) {
                assertThat(e.position()).as(q).isBetween(0, q.length());
            }
        }
    }
}
