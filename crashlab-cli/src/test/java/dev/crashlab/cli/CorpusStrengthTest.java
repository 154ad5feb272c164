package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.DiagnosisJson;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 27 item 5 on the shared corpora (read in place): a report says "strong" only for the cause its verdict
 * backs, and a framework built from source is never held to the stock release's CUDA/cuDNN table.
 */
class CorpusStrengthTest {

    /** An env listing saying the framework was built from source. */
    static final Pattern SOURCE_BUILD = Pattern.compile("(?im)^\\s*(?:tensorflow|torch)[^:\\n]*:.*\\b(?:compiled|built)\\s+from\\s+source\\b");
    /** How the checks word the stock TensorFlow table ("TF 1.4 expects CUDA 8"). */
    static final Pattern STOCK_TABLE = Pattern.compile("TF \\d+\\.\\d+ expects (?:CUDA|cuDNN)");

    @Test
    void strongOnlyWhereTheVerdictBacksItAndSourceBuildsKeepTheirOwnVersions() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(CorpusGroupsTest.CORPORA.getFirst()), "../shared/corpus is not present in this checkout");
        DiagnosisEngine engine = KnowledgeOptions.engine(KnowledgeSource.load(Path.of("kb-articles"), Path.of("compat")));
        int cases = 0;
        int capped = 0;
        int sourceBuilds = 0;
        for (Path corpus : CorpusGroupsTest.CORPORA) {
            if (!Files.isDirectory(corpus)) {
                continue;
            }
            List<Path> dirs;
            try (Stream<Path> s = Files.list(corpus)) {
                dirs = s.filter(Files::isDirectory).sorted().toList();
            }
            for (Path c : dirs) {
                cases++;
                DiagnosisInput in = OfflineBundle.read(List.of(c), p -> p.equals("meta.json"));
                Diagnosis d = engine.diagnose(in);
                JsonNode json = DiagnosisJson.toJson(d);
                JsonNode hs = json.get("hypotheses");
                for (int i = 0; i < hs.size(); i++) {
                    if (i > 0 || !json.get("verdict").asText().equals("diagnosed")) {
                        assertThat(hs.get(i).get("strength").asText()).as(c.getFileName() + ": " + hs.get(i).get("id").asText()
                                + " ranked " + (i + 1) + " under verdict " + json.get("verdict").asText()).isNotEqualTo("strong");
                    }
                    if (d.hypotheses().get(i).strength() == Hypothesis.Strength.STRONG && !hs.get(i).get("strength").asText().equals("strong")) {
                        capped++;
                    }
                }
                Path env = c.resolve("env.txt");
                if (Files.exists(env) && SOURCE_BUILD.matcher(Files.readString(env)).find()) {
                    sourceBuilds++;
                    for (JsonNode check : json.get("compat")) {
                        assertThat(check.get("explanation").asText()).as(c.getFileName() + ": " + check.get("check").asText())
                                .doesNotContainPattern(STOCK_TABLE);
                    }
                }
            }
        }
        System.out.printf("%d cases; %d strong labels capped below the verdict; %d source builds%n", cases, capped, sourceBuilds);
        assertThat(sourceBuilds).as("cases with a source build").isPositive();
    }
}
