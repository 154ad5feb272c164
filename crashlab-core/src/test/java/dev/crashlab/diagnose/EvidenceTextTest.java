package dev.crashlab.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Evidence sentences from {@code says} templates: a value the crash did not print never shows as "?" (issue 27). */
class EvidenceTextTest {

    private static String fill(String template, Map<String, String> values) {
        return EvidenceText.fill(template, f -> values.containsKey(f) ? List.of(values.get(f)) : List.of());
    }

    @Test
    void filledPlaceholdersKeepTheirValues() {
        assertThat(fill("GPU memory ran out: {requested} requested {detail}", Map.of("requested", "2.00 GiB", "detail", "(GPU 0)")))
                .isEqualTo("GPU memory ran out: 2.00 GiB requested (GPU 0)");
        assertThat(fill("Xid {code} ({mnemonic}): {meaning}", Map.of("code", "79", "mnemonic", "GPU_HAS_FALLEN_OFF_THE_BUS",
                "meaning", "the GPU fell off the bus"))).isEqualTo("Xid 79 (GPU_HAS_FALLEN_OFF_THE_BUS): the GPU fell off the bus");
    }

    @Test
    void aMissingValueTakesItsOwnClauseAlong() {
        assertThat(fill("GPU memory ran out: {requested} requested {detail}", Map.of("detail", "at conv1")))
                .isEqualTo("GPU memory ran out: at conv1");
        assertThat(fill("GPU memory ran out: {requested} requested {detail}", Map.of())).isEqualTo("GPU memory ran out");
        // seen in the walk (c013): "shape[5760,4,4,2048] requested an unnamed detail"
        assertThat(fill("GPU memory ran out: {requested} requested {detail}", Map.of("requested", "shape[5760,4,4,2048]")))
                .isEqualTo("GPU memory ran out: shape[5760,4,4,2048] requested");
        assertThat(fill("a GPU allocation failed ({requested})", Map.of())).isEqualTo("a GPU allocation failed");
        assertThat(fill("Xid {code} ({mnemonic}): {meaning}", Map.of("code", "13"))).isEqualTo("Xid 13");
        assertThat(fill("{library}: {reason} (a library from another version was loaded)", Map.of("reason", "undefined symbol")))
                .isEqualTo("undefined symbol (a library from another version was loaded)");
    }

    @Test
    void aMissingSubjectIsSaidInWords() {
        String s = fill("{library} could not be loaded", Map.of());
        assertThat(s).isEqualTo("an unnamed library could not be loaded");
        assertThat(fill("the kernel's OOM killer ended {process} (pid {pid})", Map.of("pid", "42")))
                .isEqualTo("the kernel's OOM killer ended an unnamed process (pid 42)");
    }

    @Test
    void noKbTemplateLeavesAQuestionMarkOrEmptyParentheses() throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of("kb-articles");
        List<String> templates;
        try (var files = java.nio.file.Files.list(dir)) {
            templates = files.filter(p -> p.toString().endsWith(".md")).flatMap(p -> {
                try {
                    return java.nio.file.Files.readAllLines(p).stream();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).map(String::strip).filter(l -> l.startsWith("says: \"") && l.contains("{"))
                    .map(l -> l.substring(7, l.indexOf('"', 7))).toList();
        }
        assertThat(templates).hasSizeGreaterThan(50);
        for (String t : templates) {
            String empty = fill(t, Map.of());
            assertThat(empty).as(t).doesNotContain("?", "()", "( )", "{", "\u0000", "unnamed detail").doesNotEndWith(":").isNotBlank();
        }
    }
}
