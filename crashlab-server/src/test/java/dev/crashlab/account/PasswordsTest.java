package dev.crashlab.account;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crashlab.domain.DomainException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Finding 8 of issue 26: the password policy refuses repeated characters and common passwords, not only short ones. */
class PasswordsTest {

    @Test
    void repeatedOrLowVarietyPasswordsAreRefused() {
        for (String weak : List.of("aaaaaaaaaa", "          ", "abababababab", "1212121212", "xxxxxxxxxxxxxxxxyyyy")) {
            assertThatThrownBy(() -> Passwords.check(weak)).as(weak).isInstanceOf(DomainException.class)
                    .hasMessageContaining("different characters");
        }
    }

    @Test
    void commonPasswordsAndTheirObviousVariantsAreRefused() {
        assertThat(CommonPasswords.size()).isGreaterThanOrEqualTo(200);
        for (String weak : List.of("password123", "Password2024!", "P@ssw0rd123", "qwertyuiop", "1234567890", "iloveyou123",
                "monkeymonkey", "Welcome12345", "letmein!!!!", "CrashLab2026", "trustno1trustno1", "pass word 1234")) {
            assertThatThrownBy(() -> Passwords.check(weak)).as(weak).isInstanceOf(DomainException.class)
                    .hasMessageContaining("common");
        }
    }

    @Test
    void reasonablePasswordsPass() {
        for (String ok : List.of("correct horse battery", "second-password", "a-long-password", "Tulip-Gravel-93-Orbit",
                "pw-3f1c9a0e-6b2d-4e8f")) {
            assertThatCode(() -> Passwords.check(ok)).as(ok).doesNotThrowAnyException();
        }
        assertThatThrownBy(() -> Passwords.check("ana.lopez-1", "Ana.Lopez-1")).hasMessageContaining("user name");
        assertThatThrownBy(() -> Passwords.check("short")).hasMessageContaining("at least");
    }

    @Test
    void costIsReadFromTheHash() {
        assertThat(Passwords.cost(Passwords.hash("Tulip-Gravel-93-Orbit", 5))).isEqualTo(5);
        assertThat(Passwords.cost("not a hash")).isEqualTo(-1);
    }
}
