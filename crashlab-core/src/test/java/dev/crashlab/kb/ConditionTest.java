package dev.crashlab.kb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Conditions as README "Conditions" defines them, one row per case: written, value, expected. */
class ConditionTest {

    @ParameterizedTest(name = "{0} on {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            foo            | FOO        | true
            foo            | food       | false
            79             | 79.0       | true
            0xC0000409     | 0xc0000409 | true
            /^zlib.*dll$/i | ZlibWapi.DLL | true
            /^zlib/        | ZLIB       | false
            < 8.3          | 8.2.1      | true
            < 8.3          | 8.10       | false
            >= 8.3         | 8.9.2      | true
            <= 450.80      | 418.67     | true
            <= 450.80      | 450.80.02  | false
            > 0            | 3          | true
            != 0           | 0          | false
            != 0           | -1         | true
            < 8.3          | 8          | false
            >= 8.3         | 8.x        | false
            < 8.3          | n/a        | false
            exists         | x          | true
            exists         | ''         | false
            absent         | ''         | true
            true           | TRUE       | true
            """)
    void oneValue(String written, String value, boolean expected) {
        assertThat(Condition.parse(written).test(List.of(value))).isEqualTo(expected);
    }

    @org.junit.jupiter.api.Test
    void listsAndMissingFields() {
        Condition any = new Condition.AnyOf(List.of(Condition.parse("a"), Condition.parse("/^b/")), "[a, /^b/]");
        assertThat(any.test(List.of("x", "bee"))).isTrue();
        assertThat(any.test(List.of("x"))).isFalse();
        assertThat(Condition.parse("absent").test(List.of())).isTrue();
        assertThat(Condition.parse("exists").test(List.of())).isFalse();
        assertThat(Condition.parse("foo").test(List.of())).isFalse();
    }

    @org.junit.jupiter.api.Test
    void malformedConditionsAreRefused() {
        assertThatThrownBy(() -> Condition.parse("/(/")).hasMessageStartingWith("bad regex");
        assertThatThrownBy(() -> Condition.parse(">= soon")).hasMessageContaining("needs a number or a dotted version");
        assertThatThrownBy(() -> TimedRegex.ofLiteral("/x/q")).hasMessageContaining("unknown regex flag");
    }
}
