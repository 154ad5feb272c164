package dev.crashlab.kb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What counts as naming a labelled cause: the same id, or a strict special case in either direction. */
class KnowledgeBaseCountsTest {

    static KbArticle article(String id, String specializes) {
        return new KbArticle(id, id, "hardware", List.of(), KbArticle.DEFAULT_PRIOR, List.of(), List.of(), List.of(), List.of(),
                List.of(), "", id + ".md", specializes);
    }

    static final KnowledgeBase KB = new KnowledgeBase(List.of(
            article("gpu-hardware-fault", null),
            article("gpu-fallen-off-the-bus", "gpu-hardware-fault"),
            article("gpu-row-remapping", "gpu-hardware-fault"),
            article("gpu-oom", null)), "fp", "test");

    @ParameterizedTest(name = "{0} for label {1}: {2}")
    @CsvSource({
            "gpu-hardware-fault, gpu-hardware-fault, true",
            // the special case names its general cause (Xid 79 is a hardware fault)
            "gpu-fallen-off-the-bus, gpu-hardware-fault, true",
            // and the general cause is not wrong for a case labelled with the special one
            "gpu-hardware-fault, gpu-fallen-off-the-bus, true",
            // two special cases of one cause are siblings, not each other
            "gpu-row-remapping, gpu-fallen-off-the-bus, false",
            "gpu-oom, gpu-hardware-fault, false",
            "gpu-hardware-fault, gpu-oom, false",
            // an id the knowledge base does not have counts only for itself
            "other, other, true",
            "other, gpu-oom, false"})
    void countsBothDirectionsOfSpecializes(String answer, String label, boolean counts) {
        assertThat(KB.counts(answer, label)).isEqualTo(counts);
    }
}
