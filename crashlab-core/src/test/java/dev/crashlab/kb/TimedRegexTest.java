package dev.crashlab.kb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A KB regex runs under a time budget: a catastrophic pattern costs a timeout, never a hang. */
class TimedRegexTest {

    @Test
    void findsMatchesWithinTheBudget() {
        TimedRegex r = TimedRegex.ofLiteral("/could not locate (\\w+)\\.dll/i");
        assertThat(r.find("Could not locate zlibwapi.dll. Please make sure")).isEqualTo(new TimedRegex.MatchSpan(0, 29));
        assertThat(r.matches("all good")).isFalse();
    }

    @Test
    void catastrophicBacktrackingTimesOut() {
        // a back-reference turns off the JDK's loop memoisation, so nested quantifiers backtrack exponentially
        TimedRegex r = TimedRegex.ofLiteral("/^(a+)+(b)\\2$/", 20_000_000L);
        String hostile = "a".repeat(30) + "c";
        assertThatThrownBy(() -> r.matches(hostile)).isInstanceOf(TimedRegex.RegexTimeoutException.class)
                .hasMessageContaining("exceeded its time budget");
    }

    @Test
    void literalsNeedSlashes() {
        assertThat(TimedRegex.isLiteral("/abc/i")).isTrue();
        assertThat(TimedRegex.isLiteral("abc")).isFalse();
        assertThat(TimedRegex.isLiteral("/usr/lib")).isTrue(); // parses as /usr/ + flags "lib"
        assertThatThrownBy(() -> TimedRegex.ofLiteral("/usr/lib")).hasMessageContaining("unknown regex flag 'l'");
    }
}
