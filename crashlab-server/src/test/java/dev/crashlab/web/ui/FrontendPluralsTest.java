package dev.crashlab.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The UI writes every count through {@code plural}/{@code pluralForm} in {@code frontend/src/format.ts} (issue 27:
 * "Download these 1 crashes"): no other source file chooses between singular and plural by hand. A plain scan of the
 * sources; the helper's output is checked in the browser by {@code MinorItemsBrowserTest}.
 */
class FrontendPluralsTest {

    static final Path SOURCES = Path.of("frontend/src");

    /** What a hand-made plural looks like: a test against one, "pass(es)", or a number written straight before a noun. */
    static final List<Pattern> HAND_MADE = List.of(
            Pattern.compile("[!=]==?\\s*1\\s*\\?"),
            Pattern.compile("[a-z]\\(e?s\\)(?=\\s[a-z]|['\"`]|$)"),
            Pattern.compile("(?:\\}|toLocaleString\\(\\)\\})\\s*(?:crash|crashes|bundles|files|lines|artifacts|facts|problems|entries|times"
                    + "|tokens|users|workers|jobs|passes|matches|days|hours|minutes|matchers|bytes|layers|records|events)\\b(?!=)"));

    @Test
    void noSourceFileButFormatChoosesAPluralByHand() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().matches(".*\\.tsx?$")).sorted().toList()) {
                if (f.endsWith("format.ts") || f.endsWith("api-types.ts")) {
                    continue;
                }
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    if (line.trim().startsWith("//") || line.trim().startsWith("*")) {
                        continue;
                    }
                    for (Pattern p : HAND_MADE) {
                        if (p.matcher(line).find()) {
                            found.add(f + ":" + (i + 1) + ": " + line.trim());
                        }
                    }
                }
            }
        }
        assertThat(found).as("hand-made plurals (use plural/pluralForm from format.ts)").isEmpty();
    }

    @Test
    void thePatternsCatchTheHandMadePluralsTheyAreFor() {
        List<String> handMade = List.of("Download {total === 1 ? 'this crash' : `these ${total} crashes`}",
                "`${n} pass(es) need longer`", "{group.count.toLocaleString()} crashes from", "kept {usage.retentionDays} days",
                "{n !== 1 ? 's' : ''}");
        for (String s : handMade) {
            assertThat(HAND_MADE.stream().anyMatch(p -> p.matcher(s).find())).as(s).isTrue();
        }
        List<String> fine = List.of("{plural(total, 'crash', 'crashes')}", "map((s) => s.name)", "{pluralForm(n, 'is', 'are')}",
                "if (items.length === 0) return", "<Time iso={x} seconds />", "return clip(s);", "snippetParts(s).map(",
                "<KindGroup kind={kind} facts={list} />");
        for (String s : fine) {
            assertThat(HAND_MADE.stream().noneMatch(p -> p.matcher(s).find())).as(s).isTrue();
        }
    }
}
