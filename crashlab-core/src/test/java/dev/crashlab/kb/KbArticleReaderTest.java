package dev.crashlab.kb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crashlab.compat.CompatChecks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The article validator: valid articles load whole, and each kind of mistake is reported at its file:line. */
class KbArticleReaderTest {

    static final Path VALID = Path.of("crashlab-core/src/test/resources/kb-test/valid");
    static final Path BROKEN = Path.of("crashlab-core/src/test/resources/kb-test/broken");

    final KbLoader loader = new KbLoader(CompatChecks.ids());

    @Test
    void loadsValidArticlesWithEveryPart() {
        KbLoader.Result r = loader.load(VALID);
        assertThat(r.problems()).isEmpty();
        assertThat(r.kb().articles()).extracting(KbArticle::id).containsExactly("gpu-memory", "old-driver", "zlib-missing");
        KbArticle zlib = r.kb().article("zlib-missing").orElseThrow();
        assertThat(zlib.platforms()).containsExactly("windows");
        assertThat(zlib.prior()).isEqualTo(0.05);
        assertThat(zlib.matchers()).extracting(Matcher::id).containsExactly("zlib-load", "zlib-text", "fastfail");
        assertThat(zlib.matchers().get(0).specific()).isTrue();
        assertThat(zlib.matchers().get(2).specific()).isFalse();
        assertThat(zlib.matchers().get(0).line()).isEqualTo(8);
        assertThat(zlib.against()).singleElement().satisfies(m -> assertThat(m.weight()).isEqualTo(0.8));
        assertThat(zlib.remedies()).singleElement().satisfies(rem -> assertThat(rem.platform()).isEqualTo("windows"));
        assertThat(zlib.body()).startsWith("## Symptoms");
        assertThat(r.kb().article("gpu-memory").orElseThrow().prior()).isEqualTo(KbArticle.DEFAULT_PRIOR);
        assertThat(r.kb().fingerprint()).hasSize(64);
    }

    @Test
    void reportsEachMistakeAtItsLine() {
        KbLoader.Result r = loader.load(BROKEN);
        List<String> lines = r.problems().stream().map(KbProblem::toString).toList();
        assertThat(lines).contains(
                "wrong-name.md:2: id 'not-the-file-name' differs from the file name 'wrong-name.md'",
                "no-title.md:2: missing 'title:'");
        assertThat(lines).anyMatch(l -> l.startsWith("wrong-name.md:7: unknown fact kind 'NoSuchFact'"));
        assertThat(lines).anyMatch(l -> l.startsWith("wrong-name.md:11: fact kind ExitStatus has no field 'nosuchfield'"));
        assertThat(lines).anyMatch(l -> l.startsWith("wrong-name.md:14: bad regex /([a-z]+/"));
        assertThat(lines).anyMatch(l -> l.startsWith("wrong-name.md:17: unknown compatibility check 'no-such-check'"));
        assertThat(lines).anyMatch(l -> l.startsWith("wrong-name.md:22: weight must be a number in (0, 1]"));
        assertThat(lines).anyMatch(l -> l.startsWith("no-title.md:3: unknown category 'nonsense'"));
        // issue 29: a discriminating rule names a public source (its own source:, else a web address under references:)
        assertThat(lines).contains("no-source.md:6: matcher 'insufficient' is a discriminating rule (specific: true) but names"
                + " no public source: give it 'source: https://...' or list a public web address under references:");
        assertThat(lines).anyMatch(l -> l.startsWith("no-source.md:15: source: must be a public web address"));
        // a consistent matcher (fastfail) needs no source
        assertThat(lines).noneMatch(l -> l.startsWith("no-source.md:16:"));
        assertThat(r.kb().articles()).isEmpty();
    }

    @Test
    void aDiscriminatingRuleIsSourcedByItsOwnSourceOrByAPublicReference() throws Exception {
        String valid = Files.readString(VALID.resolve("old-driver.md"));
        assertThat(valid).contains("  - https://example.org/test-reference\n");
        String noPublicReference = valid.replace("  - https://example.org/test-reference\n", "  - \"the vendor's manual\"\n");
        List<KbProblem> problems = new ArrayList<>();
        loader.load(Map.of("old-driver.md", noPublicReference), "t", problems);
        assertThat(problems).extracting(KbProblem::toString).containsExactly(
                "old-driver.md:6: matcher 'driver-check' is a discriminating rule (specific: true) but names no public source:"
                        + " give it 'source: https://...' or list a public web address under references:",
                "old-driver.md:11: matcher 'insufficient' is a discriminating rule (specific: true) but names no public source:"
                        + " give it 'source: https://...' or list a public web address under references:");
        // each rule naming its own source is enough, whatever the references say
        String ownSources = noPublicReference
                .replace("    specific: true\n  - id: insufficient", "    specific: true\n    source: https://docs.nvidia.com/deploy/cuda-compatibility/\n  - id: insufficient")
                .replace("    specific: true\n    says: \"{name}\"", "    specific: true\n    source: https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html\n    says: \"{name}\"");
        List<KbProblem> none = new ArrayList<>();
        KbLoader.Result r = loader.load(Map.of("old-driver.md", ownSources), "t", none);
        assertThat(none).isEmpty();
        assertThat(r.kb().articles()).hasSize(1);
    }

    @Test
    void reportsDuplicateIds() throws Exception {
        String text = Files.readString(VALID.resolve("gpu-memory.md")).replace("id: gpu-memory", "id: dup");
        KbLoader.Result r = loader.load(Map.of("a/dup.md", text, "b/dup.md", text), "test", new ArrayList<>());
        assertThat(r.problems()).extracting(KbProblem::toString).containsExactly("b/dup.md:2: duplicate id 'dup' (also in a/dup.md)");
        assertThat(r.kb().articles()).hasSize(1);
    }

    @Test
    void reportsMissingFrontMatterAndYamlSyntax() {
        List<KbProblem> problems = new ArrayList<>();
        KbArticleReader reader = new KbArticleReader(FactKinds.get(), CompatChecks.ids());
        assertThat(reader.read("x.md", "no front matter\n", problems)).isNull();
        assertThat(reader.read("y.md", "---\nid: y\ntitle: [unclosed\n---\nbody\n", problems)).isNull();
        assertThat(problems).extracting(KbProblem::file).containsExactly("x.md", "y.md");
        assertThat(problems.get(1).line()).isBetween(3, 5);
        assertThat(problems.get(1).message()).startsWith("YAML syntax");
    }

    @Test
    void missingMatchersRemediesAndReferencesAreErrors() {
        List<KbProblem> problems = new ArrayList<>();
        new KbArticleReader(FactKinds.get(), CompatChecks.ids())
                .read("bare.md", "---\nid: bare\ntitle: Bare\ncategory: code\n---\nBody\n", problems);
        assertThat(problems).extracting(KbProblem::message).contains("missing 'matchers:' (at least one matcher)",
                "missing 'remedies:' (ordered, concrete steps per platform)", "missing 'references:' (cite at least one source)");
    }

    @Test
    void knowsNestedAndListFieldsOfFactKinds() {
        FactKinds kinds = FactKinds.get();
        assertThat(kinds.names()).contains("ExitStatus", "LibraryLoadFailure", "GpuDevice", "ConvSpec", "TrainingSetup");
        assertThat(kinds.hasField("PythonException", "frames.file")).isTrue();
        assertThat(kinds.hasField("PythonException", "frames.nope")).isFalse();
        assertThat(kinds.hasField("GpuDevice", "unavailable.memoryTotalMiB")).isTrue();
        assertThat(kinds.hasField("ExitStatus", "sources")).isFalse();
        assertThat(kinds.hasField("NoSuchKind", "x")).isFalse();
    }

    @Test
    void theRealKnowledgeBaseIsValid() {
        Path kb = Path.of("kb-articles");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(kb), "no kb-articles/ folder in this checkout");
        KbLoader.Result r = loader.load(kb);
        assertThat(r.problems()).extracting(KbProblem::toString).isEmpty();
    }
}
